# MOELAB_SANITIZE: build everything with sanitizers. `make test-asan` configures
# build-asan with MOELAB_SANITIZE=address,undefined and runs the fast suite. UBSan is made fatal
# (-fno-sanitize-recover) so a finding fails the test instead of printing and going on; -O1 -g keeps
# the reports readable and the run a few times slower than Release only.
set(MOELAB_SANITIZE "" CACHE STRING "Sanitizers to build with, e.g. address,undefined (empty: none)")
if(MOELAB_SANITIZE)
  set(_moelab_san_flags -fsanitize=${MOELAB_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all -g -O1)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${_moelab_san_flags}>")
  add_link_options(-fsanitize=${MOELAB_SANITIZE})
  message(STATUS "  sanitizers        ${MOELAB_SANITIZE}")
endif()
