// Proves that the runtime uses no heap: the global allocation functions are
// replaced by counting ones, and nothing may be allocated from interpreter
// construction through Invoke, for every shared model and the demo model.
// (Built without sanitizers, which replace the allocator themselves.)
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "microarena/kernels/op_resolver.h"
#include "microarena/model/demo_model.h"
#include "microarena/model/model_file.h"
#include "microarena/runtime/host_runner.h"
#include "microarena/runtime/input_generator.h"
#include "microarena/runtime/interpreter.h"
#include "tests/support/test_support.h"

namespace {
bool g_counting = false;
size_t g_allocations = 0;
}  // namespace

// glibc's internal entry points, so that the replacements below can allocate.
extern "C" void* __libc_malloc(size_t);
extern "C" void* __libc_calloc(size_t, size_t);
extern "C" void* __libc_realloc(void*, size_t);
extern "C" void __libc_free(void*);

void* operator new(size_t size) {
  if (g_counting) ++g_allocations;
  void* p = __libc_malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t size) { return operator new(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  if (g_counting) ++g_allocations;
  return __libc_malloc(size == 0 ? 1 : size);
}
void* operator new[](size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, size_t) noexcept { __libc_free(p); }

// malloc itself.
extern "C" void* malloc(size_t size) {
  if (g_counting) ++g_allocations;
  return __libc_malloc(size);
}
extern "C" void* calloc(size_t count, size_t size) {
  if (g_counting) ++g_allocations;
  return __libc_calloc(count, size);
}
extern "C" void* realloc(void* p, size_t size) {
  if (g_counting) ++g_allocations;
  return __libc_realloc(p, size);
}

int main() {
  using namespace microarena;
  // The counters must see both kinds of allocation, or this test proves nothing.
  g_counting = true;
  delete new int(1);
  std::free(std::malloc(8));
  g_counting = false;
  if (g_allocations != 2) {
    std::printf("FAIL: the allocation hooks saw %zu of 2 allocations\n", g_allocations);
    return 1;
  }
  std::vector<std::pair<std::string, std::vector<uint8_t>>> models;
  models.emplace_back("demo", BuildDemoModel());
  std::string shared = testing::SharedDir();
  for (const std::string& name : testing::SharedModelNames()) {
    models.emplace_back(name, testing::ReadFileBytes(shared + "/models/" + name + ".tflite"));
  }
  if (shared.empty()) std::printf("shared data not found: checking the demo model only\n");
  int failures = 0, checked = 0;
  for (auto& [name, bytes] : models) {
    Result<ModelFile> file = ModelFile::FromBytes(bytes, name);
    if (!file.ok()) {
      std::printf("FAIL %s: %s\n", name.c_str(), file.status().message());
      ++failures;
      continue;
    }
    Result<size_t> used = MeasureArenaBytes(file->view(), AllOpsResolver());
    if (!used.ok()) {
      std::printf("FAIL %s: %s\n", name.c_str(), used.status().message());
      ++failures;
      continue;
    }
    HostArena arena(*used);
    g_allocations = 0;
    g_counting = true;
    Status status;
    {
      Interpreter interpreter(file->view(), AllOpsResolver(), arena.data(), arena.size());
      status = interpreter.AllocateTensors();
      for (size_t i = 0; status.ok() && i < interpreter.inputs_size(); ++i) {
        GenerateInput(1, interpreter.input(i)->type, interpreter.input(i)->data, interpreter.input_bytes(i));
      }
      if (status.ok()) status = interpreter.Invoke();
    }
    g_counting = false;
    ++checked;
    if (!status.ok() || g_allocations != 0) {
      std::printf("FAIL %s: %zu heap allocations; status: %s\n", name.c_str(), g_allocations,
                  status.ok() ? "ok" : status.message());
      ++failures;
    } else {
      std::printf("ok   %s: 0 heap allocations from construction through Invoke (arena %zu B)\n", name.c_str(),
                  *used);
    }
  }
  std::printf("%d passed, %d failed\n", checked - failures, failures);
  return failures == 0 ? 0 : 1;
}
