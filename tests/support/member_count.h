// The number of members of an aggregate, without naming them: T{Any, Any, ...} compiles for as
// many initialisers as T has members and no more. The schema tests compare it with the number of
// members a schema declares, so a member added without its declaration fails a test.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace paddock::test {

// Converts to any member type.
struct AnyMember {
  template <class T>
  operator T() const;  // NOLINT(google-explicit-constructor): declared only, never called
};

template <class T, std::size_t... I>
constexpr bool brace_initialisable(std::index_sequence<I...>) {
  return requires { T{(static_cast<void>(I), AnyMember{})...}; };
}

template <class T, std::size_t N = 0>
constexpr std::size_t member_count() {
  static_assert(std::is_aggregate_v<T>, "the member count needs an aggregate");
  if constexpr (brace_initialisable<T>(std::make_index_sequence<N + 1>{}))
    return member_count<T, N + 1>();
  else
    return N;
}

}  // namespace paddock::test
