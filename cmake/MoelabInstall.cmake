include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS moelab ${MOELAB_LAYER_TARGETS} moelab_exe EXPORT moelabTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The shipped scenarios and their gnuplot scripts (`moelab list scenarios` and the `plot:` hint of
# `moelab run` find them here when run outside the repository).
install(DIRECTORY scenarios plots DESTINATION ${CMAKE_INSTALL_DATADIR}/moelab)
# Public headers only: detail/ folders are internal.
install(DIRECTORY lib/moelab DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp"
        PATTERN "detail" EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/generated/moelab/core/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/moelab/core)
install(FILES ${PROJECT_BINARY_DIR}/generated/moelab/config.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/moelab)
install(EXPORT moelabTargets NAMESPACE moelab:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/moelab)
configure_package_config_file(cmake/moelabConfig.cmake.in ${PROJECT_BINARY_DIR}/moelabConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/moelab)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/moelabConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/moelabConfig.cmake ${PROJECT_BINARY_DIR}/moelabConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/moelab)
# The build tree is a package too: `find_package(moelab)` with moelab_DIR=<build folder> uses the
# targets as built, without installing (their include directories are the BUILD_INTERFACE ones).
# moelabConfig.cmake above includes moelabTargets.cmake from its own folder, so both trees share it.
export(EXPORT moelabTargets NAMESPACE moelab:: FILE ${PROJECT_BINARY_DIR}/moelabTargets.cmake)
