// Pickle interpreter for torch.save checkpoints (see pickle.h). Opcode semantics follow
// CPython's Lib/pickletools.py; only what torch.save writes is implemented.
#include "core/weights/pickle.h"

#include <cstdio>
#include <map>
#include <memory>

#include "base/limits.h"
#include "core/weights/weights_internal.h"

namespace ai00::internal {

namespace {

using weights_detail::fail;

// Objects live in the Machine's arena and refer to each other by plain pointers: a hostile
// pickle can build cycles or nesting a million deep, and neither may leak or recurse when freed.
struct Obj;
using Ref = Obj*;

struct Obj {
  enum Kind { none, boolean, integer, floating, str, tuple, list, dict, global, storage, tensor };
  Kind kind = none;
  int64_t i = 0;
  std::string s;                        // str; global "module.name"; storage type
  std::vector<Ref> items;               // tuple, list
  std::vector<std::pair<Ref, Ref>> kv;  // dict (insertion order)
  PickleTensor t;                       // tensor; storage (key, numel, type)
};

class Machine {
 public:
  Machine(const uint8_t* data, size_t size, const std::string& path, uint64_t base)
      : r_(data, size, path), path_(path), base_(base) {}
  Ref run();

 private:
  Ref make(Obj::Kind k) {
    arena_.push_back(std::make_unique<Obj>());
    arena_.back()->kind = k;
    return arena_.back().get();
  }
  [[noreturn]] void error(const std::string& what) {
    fail(path_, "", base_ + op_pos_, "pickle: " + what);
  }
  Ref pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back()))
      error("stack underflow");
    Ref v = stack_.back();
    stack_.pop_back();
    return v;
  }
  Ref& top() {
    if (stack_.empty()) error("stack underflow");
    return stack_.back();
  }
  std::vector<Ref> pop_mark() {
    if (marks_.empty()) error("no MARK on the stack");
    std::vector<Ref> v(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return v;
  }
  Ref integer(int64_t v) {
    Ref o = make(Obj::integer);
    o->i = v;
    return o;
  }
  Ref string(std::string s) {
    Ref o = make(Obj::str);
    o->s = std::move(s);
    return o;
  }
  Ref tuple(std::vector<Ref> items) {
    Ref o = make(Obj::tuple);
    o->items = std::move(items);
    return o;
  }
  std::string line() {  // GLOBAL arguments: text up to '\n'
    std::string s;
    for (;;) {
      char c = static_cast<char>(r_.u8("GLOBAL name"));
      if (c == '\n') return s;
      if (s.size() > 256) error("GLOBAL name too long");
      s += c;
    }
  }
  void memo_get(uint64_t idx) {
    auto it = memo_.find(idx);
    if (it == memo_.end()) error("memo entry " + std::to_string(idx) + " not defined");
    stack_.push_back(it->second);
  }
  void memo_put(uint64_t idx) { memo_[idx] = top(); }
  void set_items(Ref& d, const std::vector<Ref>& items);
  Ref reduce(const Ref& fn, const Ref& args);
  Ref persistent_load(const Ref& pid);
  int64_t long1();
  bool push_literal(uint8_t op);
  bool combine(uint8_t op);
  bool fill(uint8_t op);
  bool step(uint8_t op);

  weights_detail::Reader r_;
  const std::string& path_;
  uint64_t base_;
  size_t op_pos_ = 0;
  std::vector<Ref> stack_;
  std::vector<size_t> marks_;
  uint32_t max_depth_ = limits().max_nesting_depth;
  std::map<uint64_t, Ref> memo_;
  std::vector<std::unique_ptr<Obj>> arena_;
};

void Machine::set_items(Ref& d, const std::vector<Ref>& items) {
  if (d->kind != Obj::dict) error("SETITEM(S) on a non-dict");
  if (items.size() % 2 != 0) error("SETITEMS with an odd number of items");
  for (size_t i = 0; i < items.size(); i += 2) d->kv.emplace_back(items[i], items[i + 1]);
}

int64_t as_int(const Ref& o, bool* ok) {
  *ok = o && (o->kind == Obj::integer || o->kind == Obj::boolean);
  return *ok ? o->i : 0;
}

std::vector<int64_t> int_tuple(const Ref& o, bool* ok) {
  std::vector<int64_t> v;
  *ok = o && o->kind == Obj::tuple;
  if (!*ok) return v;
  for (const Ref& x : o->items) {
    v.push_back(as_int(x, ok));
    if (!*ok) return v;
  }
  return v;
}

Ref Machine::reduce(const Ref& fn, const Ref& args) {
  if (fn->kind != Obj::global || args->kind != Obj::tuple) error("REDUCE of a non-callable");
  const std::vector<Ref>& a = args->items;
  if (fn->s == "collections.OrderedDict") return make(Obj::dict);
  if (fn->s == "torch._utils._rebuild_parameter") {
    if (a.empty() || a[0]->kind != Obj::tensor) error("_rebuild_parameter without a tensor");
    return a[0];
  }
  if (fn->s != "torch._utils._rebuild_tensor_v2") {
    error("unsupported callable " + fn->s + " (not a PyTorch state dict?)");
  }
  if (a.size() < 4 || a[0]->kind != Obj::storage) error("_rebuild_tensor_v2 with bad arguments");
  Ref t = make(Obj::tensor);
  t->t = a[0]->t;
  bool ok1, ok2, ok3;
  t->t.offset = as_int(a[1], &ok1);
  t->t.size = int_tuple(a[2], &ok2);
  t->t.stride = int_tuple(a[3], &ok3);
  if (!ok1 || !ok2 || !ok3) error("_rebuild_tensor_v2 with non-integer offset, size or stride");
  return t;
}

Ref Machine::persistent_load(const Ref& pid) {
  const std::vector<Ref>& a = pid->items;
  bool ok = pid->kind == Obj::tuple && a.size() >= 5 && a[0]->kind == Obj::str &&
            a[0]->s == "storage" && a[1]->kind == Obj::global && a[2]->kind == Obj::str;
  if (!ok) error("persistent id is not ('storage', type, key, location, numel)");
  Ref s = make(Obj::storage);
  s->t.storage_type = a[1]->s;
  s->t.storage_key = a[2]->s;
  s->t.storage_numel = as_int(a[4], &ok);
  if (!ok || s->t.storage_numel < 0) error("storage numel is not a non-negative integer");
  return s;
}

// Opcodes that push one new value (constants, strings, integers, globals). False if not one.
bool Machine::push_literal(uint8_t op) {
  switch (op) {
    case '}':
      stack_.push_back(make(Obj::dict));
      return true;  // EMPTY_DICT
    case ']':
      stack_.push_back(make(Obj::list));
      return true;  // EMPTY_LIST
    case ')':
      stack_.push_back(tuple({}));
      return true;  // EMPTY_TUPLE
    case 'N':
      stack_.push_back(make(Obj::none));
      return true;  // NONE
    case 0x88:      // NEWTRUE
    case 0x89: {    // NEWFALSE
      Ref b = make(Obj::boolean);
      b->i = op == 0x88;
      stack_.push_back(b);
      return true;
    }
    case 'X':
      stack_.push_back(string(r_.str(r_.u32("BINUNICODE length"), "BINUNICODE")));
      return true;
    case 0x8c:
      stack_.push_back(string(r_.str(r_.u8("SHORT_BINUNICODE length"), "SHORT_BINUNICODE")));
      return true;
    case 0x8d:
      stack_.push_back(string(r_.str(r_.u64("BINUNICODE8 length"), "BINUNICODE8")));
      return true;
    case 'U':
      stack_.push_back(string(r_.str(r_.u8("SHORT_BINSTRING length"), "SHORT_BINSTRING")));
      return true;
    case 'J':
      stack_.push_back(integer(static_cast<int32_t>(r_.u32("BININT"))));
      return true;
    case 'K':
      stack_.push_back(integer(r_.u8("BININT1")));
      return true;
    case 'M':
      stack_.push_back(integer(r_.u16("BININT2")));
      return true;
    case 0x8a:
      stack_.push_back(integer(long1()));
      return true;  // LONG1
    case 'G':       // BINFLOAT: value unused
      r_.bytes(8, "BINFLOAT");
      stack_.push_back(make(Obj::floating));
      return true;
    case 'c': {  // GLOBAL
      Ref g = make(Obj::global);
      g->s = line();
      g->s += "." + line();
      stack_.push_back(g);
      return true;
    }
    default:
      return false;
  }
}

int64_t Machine::long1() {
  const uint8_t n = r_.u8("LONG1 length");
  if (n > 8) error("LONG1 integer wider than 64 bits");
  const uint8_t* p = r_.bytes(n, "LONG1");
  uint64_t v = 0;
  for (uint8_t k = 0; k < n; ++k) v |= static_cast<uint64_t>(p[k]) << (8 * k);
  if (n > 0 && n < 8 && (p[n - 1] & 0x80)) v |= ~uint64_t{0} << (8 * n);  // sign-extend
  return static_cast<int64_t>(v);
}

// Opcodes that combine values already on the stack. False if not one.
bool Machine::combine(uint8_t op) {
  switch (op) {
    case 't':
      stack_.push_back(tuple(pop_mark()));
      return true;  // TUPLE
    case 0x85: {    // TUPLE1
      Ref a = pop();
      stack_.push_back(tuple({a}));
      return true;
    }
    case 0x86: {  // TUPLE2
      Ref b = pop(), a = pop();
      stack_.push_back(tuple({a, b}));
      return true;
    }
    case 0x87: {  // TUPLE3
      Ref c = pop(), b = pop(), a = pop();
      stack_.push_back(tuple({a, b, c}));
      return true;
    }
    case 0x93: {  // STACK_GLOBAL
      Ref name = pop(), module = pop();
      if (name->kind != Obj::str || module->kind != Obj::str) error("STACK_GLOBAL of non-strings");
      Ref g = make(Obj::global);
      g->s = module->s + "." + name->s;
      stack_.push_back(g);
      return true;
    }
    case 'R': {  // REDUCE
      Ref args = pop(), fn = pop();
      stack_.push_back(reduce(fn, args));
      return true;
    }
    case 'Q': {  // BINPERSID
      Ref pid = pop();
      stack_.push_back(persistent_load(pid));
      return true;
    }
    default:
      return false;
  }
}

// Opcodes that fill a dict or list in place. False if not one.
bool Machine::fill(uint8_t op) {
  switch (op) {
    case 's': {  // SETITEM
      Ref v = pop(), k = pop();
      set_items(top(), {k, v});
      return true;
    }
    case 'u': {  // SETITEMS
      std::vector<Ref> items = pop_mark();
      set_items(top(), items);
      return true;
    }
    case 'a': {  // APPEND
      Ref v = pop();
      if (top()->kind != Obj::list) error("APPEND to a non-list");
      top()->items.push_back(v);
      return true;
    }
    case 'e': {  // APPENDS
      std::vector<Ref> items = pop_mark();
      if (top()->kind != Obj::list) error("APPENDS to a non-list");
      top()->items.insert(top()->items.end(), items.begin(), items.end());
      return true;
    }
    case 'b':  // BUILD: the state torch attaches (tensor hooks, dict attributes) is unused
      pop();
      top();
      return true;
    default:
      return false;
  }
}

bool Machine::step(uint8_t op) {
  switch (op) {
    case '.':
      return false;  // STOP
    case 0x80:
      r_.u8("PROTO");
      return true;
    case 0x95:
      r_.u64("FRAME");
      return true;  // protocol 4 framing: frames are not needed
    case '(':
      // Open MARKs are the pickle's nesting: bounded like every other nesting (base/limits.h).
      if (marks_.size() >= max_depth_)
        error(limit_message("", "MARK nesting", "max_nesting_depth", max_depth_));
      marks_.push_back(stack_.size());
      return true;  // MARK
    case 'q':
      memo_put(r_.u8("BINPUT"));
      return true;
    case 'r':
      memo_put(r_.u32("LONG_BINPUT"));
      return true;
    case 0x94:
      memo_put(memo_.size());
      return true;  // MEMOIZE
    case 'h':
      memo_get(r_.u8("BINGET"));
      return true;
    case 'j':
      memo_get(r_.u32("LONG_BINGET"));
      return true;
    default:
      break;
  }
  if (push_literal(op) || combine(op) || fill(op)) return true;
  char hex[8];
  std::snprintf(hex, sizeof(hex), "0x%02x", op);
  error(std::string("unsupported opcode ") + hex);
}

Ref Machine::run() {
  for (;;) {
    op_pos_ = r_.pos();
    if (r_.remaining() == 0) error("truncated: no STOP opcode");
    if (!step(r_.u8("opcode"))) break;
  }
  if (stack_.size() != 1 || !marks_.empty())
    error("malformed: stack does not hold one object at STOP");
  return stack_.back();
}

}  // namespace

std::vector<std::pair<std::string, PickleTensor>> read_torch_state_dict(const uint8_t* data,
                                                                        size_t size,
                                                                        const std::string& path,
                                                                        uint64_t base_offset) {
  if (uint64_t max = limits().max_input_bytes; size > max)  // before interpreting anything
    fail(path, "", base_offset,
         limit_message("pickle", std::to_string(size) + " bytes", "max_input_bytes", max));
  Machine m(data, size, path, base_offset);
  Ref root = m.run();
  auto not_state_dict = [&](const std::string& why) {
    fail(path, "", base_offset, "pickle is not a PyTorch state dict: " + why);
  };
  if (root->kind != Obj::dict) not_state_dict("top-level object is not a dict");
  for (const auto& kv : root->kv) {  // optional {"state_dict": {...}} wrapper
    if (kv.first->kind == Obj::str && kv.first->s == "state_dict" && kv.second->kind == Obj::dict) {
      root = kv.second;
      break;
    }
  }
  std::vector<std::pair<std::string, PickleTensor>> out;
  for (const auto& kv : root->kv) {
    if (kv.first->kind != Obj::str) not_state_dict("a key is not a string");
    if (kv.second->kind != Obj::tensor)
      not_state_dict("entry '" + kv.first->s + "' is not a tensor");
    out.emplace_back(kv.first->s, kv.second->t);
  }
  if (out.empty()) not_state_dict("it holds no tensors");
  return out;
}

}  // namespace ai00::internal