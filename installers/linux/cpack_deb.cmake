# The .deb: `cpack -G DEB` (or scripts/package) -> paddock_<version>_amd64.deb plus
# paddock-dbgsym_<version>_amd64.ddeb with the debug info split off by build id.
# Installed under /usr (CPackDeb's default prefix, PADDOCK_PACKAGE_PREFIX).
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "Paddock developers")
set(CPACK_DEBIAN_PACKAGE_SECTION "utils")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# The binaries are built with debug info (RelWithDebInfo); CPack strips them and moves the debug
# info to /usr/lib/debug/.build-id/ in the -dbgsym package.
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
# Shared-library dependencies come from dpkg-shlibdeps (dpkg-dev). It cannot see QML imports:
# the QML module packages are listed in qml-modules.txt, which a test checks against qml/.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(_qml_packages)
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/qml-modules.txt _qml_rows REGEX "^[A-Za-z]")
foreach(row IN LISTS _qml_rows)
  string(REGEX REPLACE "#.*" "" row "${row}")
  string(REGEX MATCHALL "[^ \t]+" words "${row}")
  list(POP_FRONT words)  # the module
  list(APPEND _qml_packages ${words})
endforeach()
list(REMOVE_DUPLICATES _qml_packages)
list(SORT _qml_packages)
string(REPLACE ";" ", " CPACK_DEBIAN_PACKAGE_DEPENDS "${_qml_packages}")
# Where AppArmor restricts unprivileged user namespaces, its parser loads the helper's profile.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "apparmor")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_CURRENT_LIST_DIR}/postinst ${CMAKE_CURRENT_LIST_DIR}/prerm ${CMAKE_CURRENT_LIST_DIR}/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
