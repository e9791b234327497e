# moelab_add_test(NAME name SOURCES ... [LABELS ...]): one Catch2 executable registered with CTest
# test by test (catch_discover_tests). Tests tagged [slow] are hidden from `make test` and run by
# `make test-slow` (ctest -L slow).
if(MOELAB_BUILD_TESTS)
  include(Catch)
endif()

# The headers every test parses (Catch2, Eigen, toml++, fmt, the standard library) are precompiled
# once, in moelab_test_main (tests/CMakeLists.txt), and reused by every test executable: their
# compile flags must match moelab_test_main's, so per-test settings are interface properties of
# moelab_test_main (MOELAB_SOURCE_DIR, MOELAB_BINARY_DIR) rather than per-target definitions.
# -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON builds without.
function(moelab_test_precompiled_headers target)
  target_precompile_headers(${target} REUSE_FROM moelab_test_main)
endfunction()

# ONE_THREAD: the executable's tests run with OMP_NUM_THREADS=1, so the library's default thread count
# is 1 (a test that sets a count still gets it). For the long tests whose work is parallel
# throughout: `make test` runs two tests side by side on 2 cores (ctest -j2), and two multi-threaded
# tests side by side wait on each other's descheduled threads at every OpenMP barrier (the whole
# quick suite took 110 s beside another test on 2 threads, 77 s alone on 2 threads).
function(moelab_add_test)
  cmake_parse_arguments(T "ONE_THREAD" "NAME" "SOURCES;LIBS" ${ARGN})
  set(_env "")
  if(T_ONE_THREAD)
    set(_env ENVIRONMENT OMP_NUM_THREADS=1)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE moelab_test_main ${T_LIBS})
  moelab_test_precompiled_headers(${T_NAME})
  # Unity batches (MOELAB_UNITY_TESTS): the test files of one executable instantiate the same Eigen,
  # Catch2 and moelab templates, and each file compiled alone instantiates them again (docs/building.md).
  # A test file's file-local names must therefore be unique within its folder.
  if(MOELAB_UNITY_TESTS)
    set_target_properties(${T_NAME} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${MOELAB_UNITY_TESTS_BATCH})
  endif()
  # Fast tests (everything neither tagged [slow] nor hidden: Catch2 selects hidden tests under a
  # pure exclusion such as "~[slow]") and slow tests are registered separately; hidden tests run by hand.
  # --warn NoTests: a registered name that selects no test fails instead of passing silently (CTest
  # splits names at ';', so a TEST_CASE name must not contain one: tests/CMakeLists.txt checks).
  catch_discover_tests(${T_NAME} TEST_SPEC "~[slow]~[.]" TEST_PREFIX "${T_NAME}:" PROPERTIES LABELS fast ${_env}
                       EXTRA_ARGS --warn NoTests WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  catch_discover_tests(${T_NAME} TEST_SPEC "[slow]~[.]" TEST_PREFIX "${T_NAME}:slow:" PROPERTIES LABELS slow ${_env}
                       EXTRA_ARGS --warn NoTests WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
endfunction()
