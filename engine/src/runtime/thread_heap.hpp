#pragma once
// Huge pages for the worker threads' heaps (thread_heap.cpp says why and how).

namespace tideline::parallel {

/// Called by a worker thread as it starts: marks the heap glibc's malloc gives this thread
/// (its arena) MADV_HUGEPAGE, and, once per process, makes arenas grow in steps large enough
/// for huge pages to fit and keep what they grew. A hint: where it cannot be applied (another
/// allocator, transparent huge pages off, the main heap), nothing changes but speed.
void preferHugePagesForThisThreadsHeap();

} // namespace tideline::parallel
