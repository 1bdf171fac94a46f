// Whether this build runs under AddressSanitizer or ThreadSanitizer, whose
// allocators stand in for glibc's (GCC defines __SANITIZE_*__, clang answers
// __has_feature).
#pragma once

namespace tracecompact {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizerAllocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitizerAllocator = true;
#else
inline constexpr bool kSanitizerAllocator = false;
#endif
#else
inline constexpr bool kSanitizerAllocator = false;
#endif

}  // namespace tracecompact
