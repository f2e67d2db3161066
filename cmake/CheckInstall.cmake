# cmake -DBUILD_DIR=... -DPREFIX=... -DVERSION=x.y.z -DWITH_GUI=ON|OFF -DSOURCE_DIR=... -P CheckInstall.cmake
# Installs the build tree into a fresh PREFIX and checks that what a user and a desktop need is where
# GNUInstallDirs says, and that the installed strobe-cli runs and finds its resources under PREFIX/share/strobe.
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}\n${err}")
endif()

include(GNUInstallDirs)
set(expected
  "${CMAKE_INSTALL_BINDIR}/strobe-cli"
  "${CMAKE_INSTALL_DATADIR}/applications/strobe.desktop"
  "${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps/strobe.svg"
  "${CMAKE_INSTALL_DATADIR}/strobe/sample/param-dlrm-8rank/LICENSE"
  "${CMAKE_INSTALL_DATADIR}/strobe/sample/param-dlrm-8rank/SOURCE.md")
if(WITH_GUI)
  list(APPEND expected "${CMAKE_INSTALL_BINDIR}/strobe")
endif()
# Every file of the bundled sample, and the resources that exist in the source tree.
file(GLOB sample RELATIVE "${SOURCE_DIR}/resources" "${SOURCE_DIR}/resources/sample/*/*")
foreach(f ${sample})
  list(APPEND expected "${CMAKE_INSTALL_DATADIR}/strobe/${f}")
endforeach()
file(GLOB yamls RELATIVE "${SOURCE_DIR}/resources" "${SOURCE_DIR}/resources/*.yaml"
  "${SOURCE_DIR}/resources/tools/*")
foreach(f ${yamls})
  list(APPEND expected "${CMAKE_INSTALL_DATADIR}/strobe/${f}")
endforeach()

set(missing "")
foreach(f ${expected})
  if(NOT EXISTS "${PREFIX}/${f}")
    string(APPEND missing "  ${PREFIX}/${f}\n")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "missing after install:\n${missing}")
endif()
# The installed binary runs, from outside the build tree.
execute_process(COMMAND "${PREFIX}/${CMAKE_INSTALL_BINDIR}/strobe-cli" --version
  WORKING_DIRECTORY "${PREFIX}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^strobe-cli ${VERSION}\n$")
  message(FATAL_ERROR "installed strobe-cli --version: exit ${rc}, stdout '${out}', stderr '${err}'")
endif()

# The .desktop entry launches the installed program by name and names the installed icon.
file(READ "${PREFIX}/${CMAKE_INSTALL_DATADIR}/applications/strobe.desktop" desktop)
if(NOT desktop MATCHES "\nExec=strobe[ \n]" OR NOT desktop MATCHES "\nIcon=strobe\n")
  message(FATAL_ERROR "strobe.desktop: Exec=strobe and Icon=strobe expected")
endif()

# With the classification rules installed, the installed strobe-cli summarises the installed sample using
# PREFIX/share/strobe (resource lookup relative to the executable), with the load cache off.
if(EXISTS "${PREFIX}/${CMAKE_INSTALL_DATADIR}/strobe/classification.yaml" AND CHECK_SUMMARY)
  set(ENV{STROBE_RESOURCE_DIR} "")
  execute_process(COMMAND "${PREFIX}/${CMAKE_INSTALL_BINDIR}/strobe-cli" summary --no-cache --top 1
    "${PREFIX}/${CMAKE_INSTALL_DATADIR}/strobe/sample/param-dlrm-8rank"
    WORKING_DIRECTORY "${PREFIX}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "Rank 7 of 8")
    message(FATAL_ERROR "installed strobe-cli summary on the installed sample: exit ${rc}\n${out}\n${err}")
  endif()
endif()
message(STATUS "install into ${PREFIX}: ${CMAKE_INSTALL_BINDIR}/strobe-cli, share/strobe, .desktop and icon OK")
