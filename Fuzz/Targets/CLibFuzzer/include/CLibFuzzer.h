#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer): runs the
/// fuzzing loop, parsing libFuzzer's command-line flags from argc/argv.
int LLVMFuzzerRunDriver(int *argc, char ***argv,
                        int (*UserCb)(const uint8_t *Data, size_t Size));

/// libFuzzer's built-in mutations, for use inside a custom mutator.
size_t LLVMFuzzerMutate(uint8_t *Data, size_t Size, size_t MaxSize);

#endif
