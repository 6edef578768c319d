# Flags travel on INTERFACE targets (cmake_template style), never through CMAKE_CXX_FLAGS.
add_library(tideline_warnings INTERFACE)
target_compile_options(tideline_warnings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
    $<$<BOOL:${TIDELINE_WERROR}>:-Werror>)

add_library(tideline_sanitizers INTERFACE)
if(TIDELINE_SANITIZE)
    target_compile_options(tideline_sanitizers INTERFACE
        -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    target_link_options(tideline_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
if(TIDELINE_FUZZ)
    # Coverage instrumentation for libFuzzer in everything the harnesses link (the engine);
    # the harness executables add -fsanitize=fuzzer (tests/fuzz/CMakeLists.txt).
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        message(FATAL_ERROR "TIDELINE_FUZZ needs clang (libFuzzer): use the `fuzz` preset")
    endif()
    target_compile_options(tideline_sanitizers INTERFACE -fsanitize=fuzzer-no-link)
endif()

# tideline_add_qtest(NAME name SOURCES ... LIBS ... [LABELS ...] [ENV ...] [TIMEOUT s])
# One Qt Test executable registered as one CTest case, named like engine.window.
function(tideline_add_qtest)
    cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS;ENV" ${ARGN})
    string(REPLACE "." "_" target "test_${T_NAME}")
    add_executable(${target} ${T_SOURCES})
    target_link_libraries(${target} PRIVATE Qt6::Test ${T_LIBS} tideline_warnings tideline_sanitizers)
    target_compile_definitions(${target} PRIVATE
        TIDELINE_SOURCE_DIR="${PROJECT_SOURCE_DIR}" TIDELINE_BINARY_DIR="${PROJECT_BINARY_DIR}")
    add_test(NAME ${T_NAME} COMMAND ${target})
    if(NOT T_TIMEOUT)
        set(T_TIMEOUT 300)
    endif()
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
        ENVIRONMENT "QT_QPA_PLATFORM=offscreen;${T_ENV}")
endfunction()
