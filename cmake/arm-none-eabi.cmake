# Toolchain for Cortex-M4F (thumbv7em, single-precision FPU, hard float) with
# Debian's arm-none-eabi-gcc and newlib. Bare metal: no OS, so CMake's test
# programs are built as static libraries. Code is size-optimised (-Os,
# MinSizeRel; Release is -O2), and
# every function and object gets its own section so the linker drops unused
# ones (--gc-sections in the firmware's link).
#   cmake -S examples/cortex_m -B build/cortex_m -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar)
set(CMAKE_RANLIB arm-none-eabi-ranlib)
set(CMAKE_SIZE arm-none-eabi-size)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(MICROARENA_CORTEX_M4_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_INIT "${MICROARENA_CORTEX_M4_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT
    "${MICROARENA_CORTEX_M4_FLAGS} -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit")
set(CMAKE_ASM_FLAGS_INIT "${MICROARENA_CORTEX_M4_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${MICROARENA_CORTEX_M4_FLAGS} -Wl,--gc-sections")
set(CMAKE_C_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG")
set(CMAKE_CXX_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG")
# Release is -O2 (CMake's default would be -O3): the level of the speed
# figures (bench/cortex_m_invoke.sh) and of TFLM's and CMSIS-NN's builds they
# are compared with.
set(CMAKE_C_FLAGS_RELEASE_INIT "-O2 -DNDEBUG")
set(CMAKE_CXX_FLAGS_RELEASE_INIT "-O2 -DNDEBUG")

# Host programs (flatc) from the host; libraries and headers only from the target.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
