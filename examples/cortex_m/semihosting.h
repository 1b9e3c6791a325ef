// Arm semihosting (the debugger, or QEMU with -semihosting, does the I/O):
// text out on the host's stdout and a final exit status. No newlib syscalls.
#pragma once

namespace semihosting {

// Writes a NUL-terminated string (SYS_WRITE0).
void Write(const char* text);
// Ends the program (SYS_EXIT): QEMU exits with status 0 when `success`, else 1.
[[noreturn]] void Exit(bool success);

}  // namespace semihosting
