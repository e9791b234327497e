# All dependencies are Debian 12 packages (README: Dependencies); nothing is downloaded.
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(Boost 1.74 REQUIRED)  # header-only: Boost.Math
find_package(fmt 9 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(tomlplusplus 3 REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
if(MOELAB_BUILD_TESTS)
  find_package(Catch2 2.13 REQUIRED)
endif()
