//! PyTorch profiler (Kineto) and Furiosa specifics on top of plain Chrome JSON: which categories
//! live on a device (GPU stream tracks, device groups), dialect detection, `ProfilerStep#N`.
//! Facts: docs/formats/other-formats.md §2 (Kineto) and §5 (Furiosa).

/// What a category tells about where an event lives and which producer wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatClass {
    /// Nothing special.
    Plain,
    /// Kineto host-side category (cpu_op, cuda_runtime, …).
    KinetoHost,
    /// Kineto device-side category: the event's pid is a device, its tid a stream.
    KinetoDevice,
    /// Kineto launch → device activity flow (`ac2g`; older `async_gpu`, `async_cpu_to_gpu`).
    /// The writer emits each flow event right after the activity it belongs to, with the
    /// activity's start as `ts`.
    KinetoFlow,
    /// Furiosa runtime (host) category.
    FuriosaHost,
    /// Furiosa NPU category: the event's pid/tid is the NPU.
    FuriosaDevice,
}

impl CatClass {
    pub fn is_device(self) -> bool {
        matches!(self, CatClass::KinetoDevice | CatClass::FuriosaDevice)
    }
}

/// Classify a category string (`cat`, exact, case-sensitive as Kineto writes it).
pub fn classify(cat: &str) -> CatClass {
    match cat {
        // device activities (ActivityType.h names; capitalised = PyTorch 1.8/1.9)
        "kernel"
        | "gpu_memcpy"
        | "gpu_memset"
        | "gpu_user_annotation"
        | "cuda_sync"
        | "cuda_event"
        | "cuda_profiler_range"
        | "mtia_ccp_events"
        | "Kernel"
        | "Memcpy"
        | "Memset" => CatClass::KinetoDevice,
        "ac2g" | "async_gpu" | "async_cpu_to_gpu" => CatClass::KinetoFlow,
        "cpu_op"
        | "user_annotation"
        | "python_function"
        | "cuda_runtime"
        | "cuda_driver"
        | "cpu_instant_event"
        | "fwdbwd"
        | "mtia_runtime"
        | "xpu_runtime"
        | "xpu_driver"
        | "privateuse1_runtime"
        | "privateuse1_driver"
        | "Operator"
        | "Runtime"
        | "Python"
        | "Memory" => CatClass::KinetoHost,
        "Nux" => CatClass::FuriosaHost,
        "NPU" => CatClass::FuriosaDevice,
        _ => CatClass::Plain,
    }
}

/// What a device activity of category `cat` is (Kineto's `ActivityType` names; capitalised =
/// PyTorch 1.8/1.9): `None` for categories Kineto does not define on a device.
pub fn gpu_work(cat: &str) -> Option<crate::model::GpuWork> {
    use crate::model::GpuWork;
    Some(match cat {
        // MTIA's compute-core events are its kernels (HTA counts them as such)
        "kernel" | "Kernel" | "mtia_ccp_events" => GpuWork::Kernel,
        "gpu_memcpy" | "Memcpy" => GpuWork::Memcpy,
        "gpu_memset" | "Memset" => GpuWork::Memset,
        "gpu_user_annotation" => GpuWork::Annotation,
        "cuda_sync" | "cuda_event" => GpuWork::Sync,
        "cuda_profiler_range" => GpuWork::Other,
        _ => return None,
    })
}

/// What a host (thread) slice of category `cat` is: Kineto's host categories (capitalised =
/// PyTorch 1.8/1.9), Kineto's whole-trace span (`Trace`), the critical path Holistic Trace Analysis
/// overlays (`critical_path`) and Nsight Systems' OS runtime calls (`osrt`) when a trace of it was
/// converted to JSON. `None` for the rest (for the analyses: ops).
pub fn host_work(cat: &str) -> Option<crate::model::HostWork> {
    use crate::model::HostWork;
    Some(match cat {
        "cpu_op" | "Operator" => HostWork::Op,
        "cuda_runtime"
        | "cuda_driver"
        | "Runtime"
        | "mtia_runtime"
        | "xpu_runtime"
        | "xpu_driver"
        | "privateuse1_runtime"
        | "privateuse1_driver" => HostWork::Runtime,
        "osrt" => HostWork::OsRuntime,
        "python_function" | "Python" => HostWork::Python,
        "user_annotation"
        | "gpu_user_annotation"
        | "cpu_instant_event"
        | "fwdbwd"
        | "Trace"
        | "critical_path" => HostWork::Annotation,
        _ => return None,
    })
}

/// Top-level keys of the object form that only Kineto writes.
pub fn is_kineto_top_key(key: &[u8]) -> bool {
    matches!(
        key,
        b"schemaVersion" | b"deviceProperties" | b"distributedInfo" | b"baseTimeNanoseconds" | b"traceName"
    )
}

/// `ProfilerStep#N` (HTA's regex `ProfilerStep\s*#\s*(\d+)`) → N.
pub fn profiler_step(name: &[u8]) -> Option<i64> {
    let rest = name.strip_prefix(b"ProfilerStep")?;
    let rest = trim_start(rest);
    let rest = trim_start(rest.strip_prefix(b"#")?);
    let end = rest.iter().position(|c| !c.is_ascii_digit()).unwrap_or(rest.len());
    if end == 0 || end > 18 {
        return None;
    }
    std::str::from_utf8(&rest[..end]).ok()?.parse().ok()
}

fn trim_start(b: &[u8]) -> &[u8] {
    let n = b.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(b.len());
    &b[n..]
}

/// Kineto labels a device process "GPU 0", "MTIA 1", …; Kineto's own stream rows are
/// "stream 7 " (trailing blank in the writer).
pub fn is_device_label(labels: &str) -> bool {
    let l = labels.trim_start();
    ["GPU", "MTIA", "XPU", "HPU", "NPU"].iter().any(|p| l.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps() {
        assert_eq!(profiler_step(b"ProfilerStep#12"), Some(12));
        assert_eq!(profiler_step(b"ProfilerStep # 3"), Some(3));
        assert_eq!(profiler_step(b"ProfilerStep#"), None);
        assert_eq!(profiler_step(b"ProfilerStepX"), None);
        assert_eq!(classify("kernel"), CatClass::KinetoDevice);
        assert_eq!(classify("cpu_op"), CatClass::KinetoHost);
        assert!(is_device_label("GPU 0"));
        assert!(!is_device_label("CPU"));
    }
}
