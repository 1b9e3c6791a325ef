// SharedArena: one buffer for several models that run one after another (a
// keyword spotter and a person detector on one MCU).
//
//   buffer                                                          buffer + size
//   | pad | shared head = max(heads) | temp ->  free  <- tail B | tail A | pad |
//
//  - Each interpreter's persistent area (tensor metadata, op data, variable
//    state, scratch table) is its own tail, stacked from the end in the order
//    of AllocateTensors. No other interpreter ever writes it: a later tail is
//    placed below every earlier tail and above the largest head committed so
//    far, and the head can only grow into free space.
//  - The head (activations, inputs, outputs, scratch) is shared: every model's
//    plan starts at the same address. So a model's inputs and outputs are
//    valid only until another model sharing the arena runs Invoke or
//    AllocateTensors: fill the inputs right before Invoke and read the outputs
//    right after it.
//  - Size: start padding + sum of tails + max over models of max(head, temp
//    peak). With AllocateTensors called in any order the figure is the same.
//
//   alignas(16) static uint8_t tensor_arena[kSharedArenaSize];
//   microarena::SharedArena arena(tensor_arena, sizeof(tensor_arena));
//   microarena::Interpreter kws(kws_model, resolver, arena);
//   microarena::Interpreter vww(vww_model, resolver, arena);
//   kws.AllocateTensors(); vww.AllocateTensors();
//
// Misuse is refused with an error, never by corrupting another model: an
// interpreter whose alignment differs from the arena's; AllocateTensors that
// does not fit (its partial tail is given back; the models already allocated
// keep running); Reset while interpreters are still attached. No heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "microarena/arena/arena.h"
#include "microarena/base/status.h"

namespace microarena {

class Interpreter;

class SharedArena {
 public:
  // `buffer` is borrowed and must outlive the arena and every interpreter on
  // it. `alignment`: 4, 8, 16, 32 or 64; every interpreter must use the same.
  SharedArena(uint8_t* buffer, size_t size_bytes, size_t alignment = 16);
  SharedArena(const SharedArena&) = delete;
  SharedArena& operator=(const SharedArena&) = delete;

  size_t alignment() const { return arena_.alignment(); }
  // Sum of the tails of the interpreters allocated so far.
  size_t persistent_bytes() const { return arena_.persistent_bytes(); }
  // The largest head committed so far.
  size_t head_bytes() const { return arena_.head_bytes(); }
  size_t temp_peak_bytes() const { return arena_.temp_peak_bytes(); }
  // The smallest buffer (at this start address) that holds every model
  // allocated so far: padding + sum(tails) + max(head, temp peak).
  size_t used_bytes() const { return arena_.used_bytes(); }
  // Interpreters constructed on this arena and not yet destroyed.
  size_t attached_interpreters() const { return attached_; }

  // Forgets every tail and the head, so the buffer can take a new set of
  // models. Refused while any interpreter on it is still alive.
  [[nodiscard]] Status Reset();

 private:
  friend class Interpreter;
  Arena arena_;
  uint8_t* buffer_;
  size_t size_bytes_;
  size_t requested_alignment_;
  size_t attached_ = 0;
};

}  // namespace microarena
