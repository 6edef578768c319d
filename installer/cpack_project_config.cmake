# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE).
# Debian: each component package has its own synopsis (the first line of
# CPACK_DEBIAN_<COMPONENT>_DESCRIPTION); CPackDeb would put the project-wide summary in front
# of it unless the summary is CPack's default, so reset it for this generator only.
if(CPACK_GENERATOR STREQUAL "DEB")
    set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CPACK_DEFAULT_PACKAGE_DESCRIPTION_SUMMARY}")
endif()
