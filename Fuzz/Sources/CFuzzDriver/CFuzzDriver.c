// The declaration in include/ is the whole target; libFuzzer provides the function.
