// Empty: the target exists for include/CLibFuzzer.h.
