# Configures, builds and runs tests/package against an installed ai00 (PREFIX); the program
# gets the fixture folder (SHARED) as its argument.
# SANITIZE: the sanitizers libai00 was built with (asan preset); the consumer must use the same
# runtime, as any application linking a sanitized library would.
file(REMOVE_RECURSE ${BINARY})
set(flags "")
if(SANITIZE)
  set(flags "-fsanitize=${SANITIZE}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BINARY} -DCMAKE_PREFIX_PATH=${PREFIX}
                        "-DCMAKE_C_FLAGS=${flags}" "-DCMAKE_CXX_FLAGS=${flags}"
                        "-DCMAKE_EXE_LINKER_FLAGS=${flags}"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configure of the package test failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "build of the package test failed")
endif()
foreach(prog package_test package_test_cpp)
  execute_process(COMMAND ${BINARY}/${prog} ${SHARED} RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "${prog} failed")
  endif()
endforeach()
# pkg-config sees the same installation.
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  file(GLOB_RECURSE pcs ${PREFIX}/*/ai00.pc)
  list(GET pcs 0 pc)
  get_filename_component(pcdir ${pc} DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} ${pcdir})
  execute_process(COMMAND ${PKG_CONFIG} --libs --cflags ai00 OUTPUT_VARIABLE flags RESULT_VARIABLE rc)
  if(rc OR NOT flags MATCHES "-lai00")
    message(FATAL_ERROR "pkg-config ai00 failed: ${flags}")
  endif()
endif()
