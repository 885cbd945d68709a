//===- AbiCheck.h - Hand-written C API declarations against the headers ---===//
//
// The runtime declares the entry points, types and constants of the CUDA
// driver, cuBLASLt and cuDNN by hand (runtime/cuda/*Api.h) so that it builds
// without the CUDA toolkit. Where the toolkit is installed, the *AbiCheck.cpp
// files compare each declaration with the vendor's header at compile time;
// these are the comparisons they share. Nothing here refers to a symbol at
// link time.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_TEST_UNIT_RUNTIME_ABICHECK_H
#define FUSEC_TEST_UNIT_RUNTIME_ABICHECK_H

#include <type_traits>

namespace fusec::test::abi {

/// Structs the runtime declares in its namespace for a header's global
/// ones: they match by layout (each check file compares sizes and fields),
/// not by type. A check file specializes this for each such pair.
template <typename Ours, typename Theirs> struct Declares : std::false_type {};

template <typename T> constexpr bool kIntegerLike = std::is_enum_v<T> || std::is_integral_v<T>;

/// The same type, a struct declared for the header's (Declares), or
/// integers/enums of one size: the headers pass enums where the runtime
/// passes ints. Pointers compare their pointees, qualifiers included
/// (cudaStream_t and CUstream both point to the global CUstream_st).
template <typename A, typename B> constexpr bool sameAbi() {
  if constexpr (std::is_same_v<A, B>)
    return true;
  else if constexpr (std::is_const_v<A> != std::is_const_v<B> || std::is_volatile_v<A> != std::is_volatile_v<B>)
    return false;
  else if constexpr (std::is_const_v<A> || std::is_volatile_v<A>)
    return sameAbi<std::remove_cv_t<A>, std::remove_cv_t<B>>();
  else if constexpr (std::is_pointer_v<A> && std::is_pointer_v<B>)
    return sameAbi<std::remove_pointer_t<A>, std::remove_pointer_t<B>>();
  else if constexpr (kIntegerLike<A> && kIntegerLike<B>)
    return sizeof(A) == sizeof(B);
  else
    return Declares<A, B>::value;
}

/// Same return type and parameters, each by sameAbi. Called on null
/// pointers of the two function types (unevaluated as far as linking goes).
template <typename R1, typename... A1, typename R2, typename... A2>
constexpr bool sameSignature(R1 (*)(A1...), R2 (*)(A2...)) {
  if constexpr (sizeof...(A1) != sizeof...(A2))
    return false;
  else
    return sameAbi<R1, R2>() && (sameAbi<A1, A2>() && ...);
}

} // namespace fusec::test::abi

/// static_asserts that `Table::member` has the header's `function`'s type.
#define FUSEC_CHECK_ENTRY_OF(Table, member, function)                                                                  \
  static_assert(::fusec::test::abi::sameSignature(static_cast<decltype(Table::member)>(nullptr),                       \
                                                  static_cast<decltype(&::function)>(nullptr)),                        \
                #Table "::" #member " does not match the header's " #function)

#endif // FUSEC_TEST_UNIT_RUNTIME_ABICHECK_H
