// The kernel table of one ISA: every template above instantiated on the arch tag A. Never
// compiled alone; included last inside the per-ISA namespace. constexpr, so the table is
// constant-initialised (no static-init order or guard). The BF16 dot entries stay empty here:
// only the avx512_bf16 table (isa_avx512_bf16.cpp) has them; pack_q8 and unpack_q8 are set by
// the tables that pack.
template <class A>
constexpr KernelTable make_table(const char* name) {
  return KernelTable{name,        &matmul<A>, &wkv7<A>,  &norm<A>,          &lerp<A>,
                     &sigmoid<A>, &tanh_<A>,  &decay<A>, &relu_sq<A>,       &add<A>,
                     &mul<A>,     &fma_<A>,   &dot<A>,   &quantize_q8_impl, &matmul_q8_impl,
                     nullptr,     nullptr,    nullptr,   &matmul_t<A>,      nullptr};
}
