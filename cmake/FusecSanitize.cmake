# Sanitizer and fuzzing builds (docs/fuzzing.md).
#
# FUSEC_SANITIZE: every target is built with AddressSanitizer and
# UndefinedBehaviorSanitizer; any report aborts the process, so a test that
# triggers one fails. Works with g++ and clang.
#
# FUSEC_SANITIZE_THREAD: every target is built with ThreadSanitizer
# (scripts/ci/tsan-runtime.sh: the runtime's "[threads]" tests).
#
# FUSEC_BUILD_FUZZERS: the libFuzzer harnesses in test/fuzz. Every target is
# compiled with -fsanitize=fuzzer-no-link so that libFuzzer sees coverage in
# the libraries, not just in the harnesses; needs clang (clang++-19).
option(FUSEC_SANITIZE "Build with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
option(FUSEC_SANITIZE_THREAD "Build with ThreadSanitizer" OFF)
option(FUSEC_BUILD_FUZZERS "Build the libFuzzer harnesses in test/fuzz (clang only)" OFF)

if(FUSEC_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
if(FUSEC_SANITIZE_THREAD)
  if(FUSEC_SANITIZE)
    message(FATAL_ERROR "FUSEC_SANITIZE_THREAD and FUSEC_SANITIZE cannot be combined")
  endif()
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
if(FUSEC_BUILD_FUZZERS)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
