// Semihosting calls: r0 = operation, r1 = argument, then `bkpt 0xAB` (the
// Thumb semihosting trap on M-profile cores).
#include "semihosting.h"

#include <cstdint>

namespace semihosting {
namespace {

constexpr uint32_t kSysWrite0 = 0x04;
constexpr uint32_t kSysExit = 0x18;
constexpr uint32_t kApplicationExit = 0x20026;  // ADP_Stopped_ApplicationExit
constexpr uint32_t kRunTimeError = 0x20023;     // ADP_Stopped_RunTimeErrorUnknown

uint32_t Call(uint32_t operation, const void* argument) {
  register uint32_t r0 __asm__("r0") = operation;
  register const void* r1 __asm__("r1") = argument;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

}  // namespace

void Write(const char* text) { Call(kSysWrite0, text); }

void Exit(bool success) {
  // On 32-bit Arm SYS_EXIT takes the reason code itself in r1.
  Call(kSysExit, reinterpret_cast<const void*>(success ? kApplicationExit : kRunTimeError));
  for (;;) {
  }
}

}  // namespace semihosting
