// The kernel table of one ISA: every template above instantiated on the arch tag A. Never
// compiled alone; included last inside the per-ISA namespace. constexpr, so the table is
// constant-initialised (no static-init order or guard).
template <class A>
constexpr KernelTable make_table(const char* name) {
  return KernelTable{name,      &matmul<A>,  &wkv7<A>, &norm<A>, &lerp<A>, &sigmoid<A>, &tanh_<A>,
                     &decay<A>, &relu_sq<A>, &add<A>,  &mul<A>,  &fma_<A>, &dot<A>};
}
