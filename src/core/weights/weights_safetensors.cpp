// safetensors loader (docs/weight-files.md "safetensors and .st"): u64 header length, a JSON header
// mapping tensor name -> {dtype, shape, data_offsets}, then the data area. Both the ai00/web-rwkv
// `.st` layout (F16, LoRAs Linear) and the plain BlinkDL layout (LoRAs (C, D)) load: orientation is
// detected from the shapes in finalize_tensors.
#include <simdjson.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/weights/weights_internal.h"

namespace ai00::internal::weights_detail {

namespace {

// safetensors names its float types exactly as dtype_name does; quantized types do not occur.
bool st_dtype(std::string_view s, DType* out) {
  const std::optional<DType> t = dtype_from_name(s);
  if (!t || dtype_is_quantized(*t)) return false;
  *out = *t;
  return true;
}

struct Entry {
  TensorView t;
  uint64_t begin = 0, end = 0;
};

// One header entry; `hdr_end` = first byte of the data area (for messages and pointers).
Entry parse_entry(const WeightFile& wf, std::string_view key, simdjson::dom::element v,
                  uint64_t data_start, uint64_t data_size) {
  const std::string name(key);
  auto bad = [&](const std::string& what) { fail(wf.path, name, 8, "header entry: " + what); };
  simdjson::dom::object obj;
  if (v.get_object().get(obj)) bad("not a JSON object");
  std::string_view dtype_s;
  if (obj["dtype"].get_string().get(dtype_s)) bad("missing or non-string \"dtype\"");
  Entry e;
  e.t.name = name;
  e.t.stored_name = name;
  if (!st_dtype(dtype_s, &e.t.dtype)) {
    bad("unsupported dtype \"" + std::string(dtype_s) + "\" (supported: F32, F16, BF16)");
  }
  simdjson::dom::array shape, offs;
  if (obj["shape"].get_array().get(shape)) bad("missing or non-array \"shape\"");
  for (simdjson::dom::element d : shape) {
    int64_t n;
    if (d.get_int64().get(n)) bad("non-integer dimension in \"shape\"");
    e.t.shape.push_back(n);
  }
  if (e.t.shape.empty() || e.t.shape.size() > 4) bad("shape must have 1 to 4 dimensions");
  if (obj["data_offsets"].get_array().get(offs) || offs.size() != 2) {
    bad("missing \"data_offsets\" [begin, end]");
  }
  if (offs.at(0).get_uint64().get(e.begin) || offs.at(1).get_uint64().get(e.end)) {
    bad("non-integer \"data_offsets\"");
  }
  const uint64_t nbytes = tensor_bytes(e.t.dtype, e.t.shape, wf.path, name, data_start + e.begin);
  if (e.begin > e.end || e.end > data_size) {
    fail(wf.path, name, data_start + e.begin,
         "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
             "] lie outside the data area of " + std::to_string(data_size) + " bytes");
  }
  if (e.end - e.begin != nbytes) {
    fail(wf.path, name, data_start + e.begin,
         "data_offsets span " + std::to_string(e.end - e.begin) + " bytes but " +
             dtype_name(e.t.dtype) + " " + e.t.shape_string() + " needs " + std::to_string(nbytes));
  }
  e.t.file_offset = data_start + e.begin;
  e.t.data = wf.file->data() + e.t.file_offset;
  e.t.nbytes = static_cast<size_t>(nbytes);
  return e;
}

void read_metadata(WeightFile& wf, simdjson::dom::element v) {
  simdjson::dom::object obj;
  if (v.get_object().get(obj)) fail(wf.path, "", 8, "\"__metadata__\" is not a JSON object");
  for (auto kv : obj) {
    std::string_view s;
    if (kv.value.get_string().get(s)) {
      fail(wf.path, "", 8,
           "\"__metadata__\" value of \"" + std::string(kv.key) + "\" is not a string");
    }
    wf.metadata[std::string(kv.key)] = std::string(s);
  }
}

}  // namespace

void load_safetensors(WeightFile& wf) {
  const MappedFile& f = *wf.file;
  Reader r(f.data(), f.size(), wf.path);
  const uint64_t hlen = r.u64("header length");
  if (hlen > r.remaining()) {
    fail(wf.path, "", 0,
         "safetensors header length " + std::to_string(hlen) + " exceeds the file size " +
             std::to_string(f.size()));
  }
  const uint64_t data_start = 8 + hlen;
  const uint64_t data_size = f.size() - data_start;
  simdjson::dom::parser parser;
  simdjson::padded_string json(reinterpret_cast<const char*>(f.data() + 8), hlen);
  simdjson::dom::element root;
  if (auto err = parser.parse(json).get(root)) {
    fail(wf.path, "", 8,
         std::string("safetensors header is not valid JSON: ") + simdjson::error_message(err));
  }
  simdjson::dom::object obj;
  if (root.get_object().get(obj)) fail(wf.path, "", 8, "safetensors header is not a JSON object");
  std::vector<Entry> entries;
  for (auto kv : obj) {
    if (kv.key == "__metadata__") {
      read_metadata(wf, kv.value);
      continue;
    }
    entries.push_back(parse_entry(wf, kv.key, kv.value, data_start, data_size));
  }
  if (entries.empty()) fail(wf.path, "", 8, "safetensors file has no tensors");
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < entries.size(); ++i) {
    if (entries[i].begin < entries[i - 1].end) {
      fail(wf.path, entries[i].t.name, data_start + entries[i].begin,
           "data overlaps tensor '" + entries[i - 1].t.name + "'");
    }
  }
  std::vector<TensorView> stored;
  for (Entry& e : entries) stored.push_back(std::move(e.t));
  finalize_tensors(wf, std::move(stored), LoraLayout::detect);
}

}  // namespace ai00::internal::weights_detail
