// Whether this build runs under AddressSanitizer or ThreadSanitizer, whose
// allocators stand in for glibc's (GCC defines __SANITIZE_*__, clang answers
// __has_feature).
#pragma once

namespace tracecompact {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TRACECOMPACT_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TRACECOMPACT_SANITIZER_ALLOCATOR 1
#endif
#endif
#ifndef TRACECOMPACT_SANITIZER_ALLOCATOR
#define TRACECOMPACT_SANITIZER_ALLOCATOR 0
#endif

inline constexpr bool kSanitizerAllocator = TRACECOMPACT_SANITIZER_ALLOCATOR != 0;

}  // namespace tracecompact
