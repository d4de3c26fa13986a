# macOS: a drag-and-drop .dmg holding Paddock.app. NEVER BUILT: macOS cannot be compiled on the
# machines this project builds on (installers/README.md says what was and was not checked).
#
# The bundle is the install prefix: CPack installs into <dmg>/Paddock.app/Contents, and the
# top-level CMakeLists.txt points the relative lookups (PADDOCK_LIBEXEC_REL, PADDOCK_DATA_REL)
# at the bundle's own directories when PADDOCK_MACOS_BUNDLE is ON:
#   Contents/MacOS/paddock-gui        the app (CFBundleExecutable)
#   Contents/MacOS/paddock            the CLI; users link it into their PATH
#   Contents/Helpers/paddock-helper   the Seatbelt helper (found as MacOS/../Helpers)
#   Contents/Resources/paddock/       profiles, presets, agents, macos/paddock-base.sb
#   Contents/Frameworks, Resources/qml  Qt, put there by macdeployqt (CPACK_PRE_BUILD_SCRIPTS)
#
# What sandbox_init_with_parameters needs from the package:
# - libsandbox, which is part of libSystem (the helper links -lsandbox; no framework to ship);
# - the SBPL base text at Contents/Resources/paddock/macos/paddock-base.sb, which the plan
#   compiler reads and the helper receives in the plan;
# - a helper that is NOT itself in the App Sandbox: an app-sandboxed process cannot install a
#   Seatbelt profile of its own, so the bundle must not carry com.apple.security.app-sandbox
#   (and so cannot go to the Mac App Store). The Hardened Runtime is compatible: sign every
#   executable with `codesign --options runtime --timestamp` and a Developer ID, then notarize
#   the .dmg; sandbox_init_with_parameters needs no entitlement.
if(NOT PADDOCK_MACOS_BUNDLE)
  message(WARNING "installers/macos: configure with -DPADDOCK_MACOS_BUNDLE=ON to lay out Paddock.app")
endif()
set(CPACK_PACKAGING_INSTALL_PREFIX "/Paddock.app/Contents")
set(CPACK_DMG_VOLUME_NAME "Paddock ${PROJECT_VERSION}")
set(CPACK_DMG_FORMAT "UDZO")
set(CPACK_PACKAGE_FILE_NAME "Paddock-${PROJECT_VERSION}")

set(PADDOCK_BUNDLE_ID "${PADDOCK_APP_ID}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/Info.plist.in ${CMAKE_CURRENT_BINARY_DIR}/macos/Info.plist @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/macos/Info.plist DESTINATION .)
install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/paddock.svg DESTINATION Resources)
# macdeployqt copies the Qt frameworks, plugins and the QML modules qml/ imports into the staged
# bundle before the .dmg is made.
set(PADDOCK_MACDEPLOYQT "${Qt6_DIR}/../../../bin/macdeployqt")
configure_file(${CMAKE_CURRENT_LIST_DIR}/deploy_qt.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/macos/deploy_qt.cmake @ONLY)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_BINARY_DIR}/macos/deploy_qt.cmake)
