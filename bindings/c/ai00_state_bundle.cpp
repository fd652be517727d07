// State bundles through the C ABI (ai00.h "State bundles"; core/model/state_bundle.h).
#include <cstring>
#include <string>
#include <vector>

#include "abi_state.h"
#include "core/model/state_bundle.h"

// An opened bundle: immutable, so any number of threads may read it; the error slot locks.
struct ai00_state_bundle {
  explicit ai00_state_bundle(ai00::internal::StateBundle b) : bundle(std::move(b)) {}
  ai00::internal::StateBundle bundle;
  mutable ai00::internal::abi::ErrorSlot error;
};

namespace {

using ai00::internal::abi::require;

ai00::internal::abi::ErrorSlot* slot_of(const ai00_state_bundle* b) {
  return b ? &b->error : nullptr;
}

std::vector<ai00::internal::BundleItem> items_of(const ai00_state* const* states,
                                                 const char* const* names, const size_t* name_lens,
                                                 size_t count, const char* fn) {
  std::vector<ai00::internal::BundleItem> items;
  if (count == 0) return items;
  require(states, fn, "states");
  require(names, fn, "names");
  for (size_t i = 0; i < count; ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    require(states[i], fn, ("states" + at).c_str());
    require(names[i], fn, ("names" + at).c_str());
    const size_t len = name_lens ? name_lens[i] : AI00_NUL_TERMINATED;
    items.push_back({ai00::internal::abi::text_arg(names[i], len, fn, ("names" + at).c_str()),
                     &states[i]->core});
  }
  return items;
}

}  // namespace

extern "C" {

AI00_API ai00_status ai00_state_bundle_save(size_t* out_size, void* buffer, size_t capacity,
                                            const ai00_state* const* states,
                                            const char* const* names, const size_t* name_lens,
                                            size_t count) {
  try {
    const char* fn = "ai00_state_bundle_save";
    require(out_size, fn, "out_size");
    const auto items = items_of(states, names, name_lens, count, fn);
    const size_t need = ai00::internal::state_bundle_size(items);
    if (ai00_status st = ai00::internal::abi::check_capacity(nullptr, out_size, need, buffer,
                                                             capacity, fn, "the bundle");
        st != AI00_OK)
      return st;
    ai00::internal::save_state_bundle(items, static_cast<uint8_t*>(buffer), capacity);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_state_bundle_save_file(const ai00_state* const* states,
                                                 const char* const* names, const size_t* name_lens,
                                                 size_t count, const char* path, size_t path_len) {
  try {
    const char* fn = "ai00_state_bundle_save_file";
    require(path, fn, "path");
    const auto items = items_of(states, names, name_lens, count, fn);
    ai00::internal::save_state_bundle_file(
        items, std::string(ai00::internal::abi::text_arg(path, path_len, fn, "path")));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_state_bundle_open(ai00_state_bundle** out_bundle, const void* data,
                                            size_t size) {
  try {
    const char* fn = "ai00_state_bundle_open";
    require(out_bundle, fn, "out_bundle");
    require(data, fn, "data");
    *out_bundle = new ai00_state_bundle(ai00::internal::StateBundle::open(
        static_cast<const uint8_t*>(data), size, "state bundle buffer"));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_state_bundle_open_file(ai00_state_bundle** out_bundle, const char* path,
                                                 size_t path_len) {
  try {
    const char* fn = "ai00_state_bundle_open_file";
    require(out_bundle, fn, "out_bundle");
    require(path, fn, "path");
    *out_bundle = new ai00_state_bundle(ai00::internal::StateBundle::open_file(
        std::string(ai00::internal::abi::text_arg(path, path_len, fn, "path"))));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_state_bundle_free(ai00_state_bundle* bundle) {
  delete bundle;
  return AI00_OK;
}

AI00_API const char* ai00_state_bundle_last_error(const ai00_state_bundle* bundle) {
  try {
    return bundle ? bundle->error.get() : "";
  } catch (...) {
    return "";
  }
}

AI00_API ai00_status ai00_state_bundle_count(size_t* out_count, const ai00_state_bundle* bundle) {
  try {
    require(out_count, "ai00_state_bundle_count", "out_count");
    require(bundle, "ai00_state_bundle_count", "bundle");
    *out_count = bundle->bundle.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(bundle));
  }
}

AI00_API ai00_status ai00_state_bundle_name(const char** out_name, size_t* out_len,
                                            const ai00_state_bundle* bundle, size_t index) {
  try {
    const char* fn = "ai00_state_bundle_name";
    require(out_name, fn, "out_name");
    require(out_len, fn, "out_len");
    require(bundle, fn, "bundle");
    const std::string& name = bundle->bundle.name(index);
    *out_name = name.c_str();
    *out_len = name.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(bundle));
  }
}

AI00_API ai00_status ai00_state_bundle_find(size_t* out_index, const ai00_state_bundle* bundle,
                                            const char* name, size_t name_len) {
  try {
    const char* fn = "ai00_state_bundle_find";
    require(out_index, fn, "out_index");
    require(bundle, fn, "bundle");
    require(name, fn, "name");
    const std::string_view n = ai00::internal::abi::text_arg(name, name_len, fn, "name");
    const size_t i = bundle->bundle.find(n);
    if (i == bundle->bundle.size())
      throw ai00::internal::InvalidArgument(std::string(fn) + ": no entry is named '" +
                                            std::string(n) + "'");
    *out_index = i;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(bundle));
  }
}

AI00_API ai00_status ai00_state_bundle_load(ai00_state** out_state, const ai00_state_bundle* bundle,
                                            const ai00_model* model, size_t index) {
  try {
    const char* fn = "ai00_state_bundle_load";
    require(out_state, fn, "out_state");
    require(bundle, fn, "bundle");
    require(model, fn, "model");
    *out_state = new ai00_state(model->model, bundle->bundle.load(*model->model, index));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(bundle));
  }
}

}  // extern "C"
