// Canonical dump: see Dump.swift
