# Windows: an NSIS installer (Paddock-<version>-win64.exe). NEVER BUILT: only the Windows helper
# cross-compiles here (tests/helpers/windows/cross_compile.sh, mingw); the CLI and the app do not
# build for Windows yet (installers/README.md says what was and was not checked).
#
# Layout under the install directory (default C:\Program Files\Paddock), the same relative
# layout the CLI and the app look up from their own directory:
#   bin\paddock.exe, bin\paddock-gui.exe     + the Qt DLLs and QML modules (windeployqt)
#   libexec\paddock\paddock-helper.exe       AppContainer + Job object helper
#   share\paddock\                           profiles, presets, agents
# The helper needs no service, driver or administrator right at run time: AppContainer profiles
# and Job objects are per user. Installing under Program Files does need elevation; the
# installer asks for it (per-machine install).
set(CPACK_NSIS_PACKAGE_NAME "Paddock")
set(CPACK_NSIS_DISPLAY_NAME "Paddock ${PROJECT_VERSION}")
set(CPACK_PACKAGE_INSTALL_REGISTRY_KEY "Paddock")
set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)  # an upgrade replaces the old version
set(CPACK_NSIS_MODIFY_PATH ON)                      # offers to put bin\ on PATH (for paddock.exe)
set(CPACK_NSIS_INSTALLED_ICON_NAME "bin\\\\paddock-gui.exe")
set(CPACK_NSIS_MUI_FINISHPAGE_RUN "paddock-gui.exe")
set(CPACK_PACKAGE_EXECUTABLES "paddock-gui" "Paddock")  # the Start menu entry
set(CPACK_NSIS_URL_INFO_ABOUT "")
set(CPACK_PACKAGE_FILE_NAME "Paddock-${PROJECT_VERSION}-win64")
# windeployqt copies Qt's DLLs, plugins and the QML modules qml/ imports next to paddock-gui.exe
# in the staging tree before makensis runs.
find_program(PADDOCK_WINDEPLOYQT windeployqt HINTS "${Qt6_DIR}/../../../bin")
configure_file(${CMAKE_CURRENT_LIST_DIR}/deploy_qt.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/windows/deploy_qt.cmake @ONLY)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_BINARY_DIR}/windows/deploy_qt.cmake)
