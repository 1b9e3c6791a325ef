// Reset handler and vector table for the Cortex-M4 of Arm's MPS2 AN386 board
// (QEMU: -M mps2-an386). At reset: copy .data from flash, zero .bss, enable
// the FPU (the code is built for hard float), run static constructors, call
// FirmwareMain, and report its result as the semihosting exit status. Any fault
// ends the run with a message and a failing status instead of hanging.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "semihosting.h"

extern "C" {
// From the linker script.
extern uint32_t __data_load_start[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_top[];
// From newlib: runs the constructors in .preinit_array/.init_array.
void __libc_init_array();
void Reset_Handler();
void Fault_Handler();
}
// The application (main.cc). Not `main`: C++ forbids calling main.
int FirmwareMain();

namespace {

void DefaultHandler() {
  semihosting::Write("fatal: unexpected exception or interrupt\n");
  semihosting::Exit(false);
}

constexpr size_t kVectorCount = 16;

}  // namespace

// __libc_init_array calls _init between the two arrays; without the C
// runtime's start files (-nostartfiles) there is nothing for it to do.
extern "C" void _init() {}

extern "C" void Fault_Handler() {
  semihosting::Write("fatal: hard fault\n");
  semihosting::Exit(false);
}

extern "C" void Reset_Handler() {
  const size_t data_bytes = static_cast<size_t>(reinterpret_cast<uint8_t*>(__data_end) -
                                                reinterpret_cast<uint8_t*>(__data_start));
  std::memcpy(__data_start, __data_load_start, data_bytes);
  const size_t bss_bytes = static_cast<size_t>(reinterpret_cast<uint8_t*>(__bss_end) -
                                               reinterpret_cast<uint8_t*>(__bss_start));
  std::memset(__bss_start, 0, bss_bytes);
  // CPACR: full access to coprocessors 10 and 11 (the FPU).
  volatile uint32_t* const cpacr = reinterpret_cast<volatile uint32_t*>(0xE000ED88u);
  *cpacr = *cpacr | (0xFu << 20);
  __asm__ volatile("dsb\n isb" ::: "memory");
  __libc_init_array();
  const int status = FirmwareMain();
  semihosting::Exit(status == 0);
}

// Initial stack pointer, then the exception handlers (reset, NMI, faults).
using Handler = void (*)();
__attribute__((section(".vectors"), used)) const Handler kVectorTable[kVectorCount] = {
    reinterpret_cast<Handler>(__stack_top),  // initial SP
    Reset_Handler,
    DefaultHandler,  // NMI
    Fault_Handler,   // HardFault
    Fault_Handler,   // MemManage
    Fault_Handler,   // BusFault
    Fault_Handler,   // UsageFault
    nullptr, nullptr, nullptr, nullptr,
    DefaultHandler,  // SVCall
    DefaultHandler,  // DebugMonitor
    nullptr,
    DefaultHandler,  // PendSV
    DefaultHandler,  // SysTick
};

// Firmwares never use the heap; if anything linked in ever asks newlib for
// heap memory, stop loudly rather than hand out memory outside the arena.
extern "C" void* _sbrk(ptrdiff_t) {
  semihosting::Write("fatal: heap use (_sbrk)\n");
  semihosting::Exit(false);
}
