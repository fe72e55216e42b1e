import Foundation

/// The processors this process may run on (cgroup quota and affinity
/// included), read once: Foundation reads two cgroup files on every call,
/// and an animation of small frames asks often.
package let activeCores = max(1, ProcessInfo.processInfo.activeProcessorCount)
