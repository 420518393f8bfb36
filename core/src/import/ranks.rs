//! Rank identity of input files: the rank number and NeuronCore their names state, and the one
//! rule that numbers the files of a profile as ranks ([`number_files`]). Used at import, to
//! label the groups of a job's ranks (`import::name_groups_by_rank`), and by the analyses' rank
//! map (`analysis::gpu::RankMap`), so a group's label and its rank in every analysis agree.

/// How the ranks of a profile were numbered ([`number_files`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RankSource {
    /// Kineto's `distributedInfo.rank`, one per file.
    DistributedInfo,
    /// The files' names: `rank_N` / `rank-N` ([`rank_in_file_name`]).
    FileName,
    /// Neuron captures' names: the NeuronCore they state ([`neuron_core_in_file_name`]).
    NeuronCoreInFileName,
    /// The files' positions in the input, from 0.
    Position,
}

/// The rank numbers of the input files (`names`, in order of first appearance), and how they
/// were chosen. The first rule that numbers every file with distinct numbers wins:
/// 1. `distributedInfo.rank` (Kineto), when the `metadata` records hold one per file;
/// 2. the file names' `rank_N` / `rank-N` ([`rank_in_file_name`]);
/// 3. when every file is a Neuron capture (`neuron[i]`: a group with device facts), the
///    NeuronCore their names state (`nc_N`, `vnc_N`: [`neuron_core_in_file_name`]);
/// 4. else the file positions (one file without any: 0).
///
/// File names are read here, once: at import (the groups' labels) and by the rank map of the
/// analyses (`analysis::gpu::RankMap`), never by an analysis of its own.
pub fn number_files(
    metadata: &[(String, String)],
    names: &[Option<&str>],
    neuron: &[bool],
) -> (Vec<i64>, RankSource) {
    let files = names.len();
    let distinct = |r: &[i64]| {
        let mut u = r.to_vec();
        u.sort_unstable();
        u.dedup();
        u.len() == r.len()
    };
    let all = |f: &dyn Fn(&str) -> Option<i64>| -> Option<Vec<i64>> {
        let r: Vec<i64> = names.iter().map(|n| n.and_then(f)).collect::<Option<Vec<i64>>>()?;
        distinct(&r).then_some(r)
    };
    let infos: Vec<Option<i64>> = metadata
        .iter()
        .filter(|(k, _)| k == "distributedInfo")
        .map(|(_, v)| serde_json::from_str::<serde_json::Value>(v).ok().and_then(|j| j.get("rank")?.as_i64()))
        .collect();
    if infos.len() == files && infos.iter().all(Option::is_some) {
        let r: Vec<i64> = infos.into_iter().flatten().collect();
        if distinct(&r) {
            return (r, RankSource::DistributedInfo);
        }
    }
    if files > 0 {
        if let Some(r) = all(&rank_in_file_name) {
            return (r, RankSource::FileName);
        }
        if neuron.len() == files && neuron.iter().all(|&n| n) {
            if let Some(r) = all(&neuron_core_in_file_name) {
                return (r, RankSource::NeuronCoreInFileName);
            }
        }
    }
    ((0..files as i64).collect(), RankSource::Position)
}

/// The rank number a file name states: `rank_N` or `rank-N` (any case) in its last path
/// component, `rank` not preceded by a letter or digit and `N` (at most 9 digits) not followed by
/// one: `job_rank_3.ntff`, `hta__trace_filter_sampled_rank-1.json.gz`, and neuron-profile's
/// multi-worker captures `profile_rank_<i>.ntff` (docs/formats/neuron.md §2.1). The first match.
pub fn rank_in_file_name(name: &str) -> Option<i64> {
    numbered_word(base_name(name), "rank")
}

/// The NeuronCore a Neuron capture's file name states, as neuron-profile and the runtime name
/// per-core files (docs/formats/neuron.md §2.1): `nc_N` / `nc-N` (session mode
/// `profile_nc_0_session_0.ntff`, per-core exports `…_nc_<N>_session_0.json`, the runtime's
/// `nrt-nc-003` rows) and `vnc_N` (the logical NeuronCore of `<hash>_instid_0_vnc_<n>.ntff`).
/// Same token rules as [`rank_in_file_name`]. `core_N` is not read: no Neuron tool is known to
/// write it.
pub fn neuron_core_in_file_name(name: &str) -> Option<i64> {
    let base = base_name(name);
    numbered_word(base, "nc").or_else(|| numbered_word(base, "vnc"))
}

fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// `N` of the first `<word>_N` / `<word>-N` in `s` (ASCII case-insensitive) whose word starts
/// the text or follows a character that is not a letter or digit, and whose digits (1 to 9)
/// end the text or are followed by a character that is not one.
fn numbered_word(s: &str, word: &str) -> Option<i64> {
    let b = s.as_bytes();
    let w = word.as_bytes();
    let mut i = 0;
    while i + w.len() < b.len() {
        let here = b[i..i + w.len()].eq_ignore_ascii_case(w);
        let starts = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let sep = i + w.len();
        if here && starts && matches!(b[sep], b'_' | b'-') {
            let digits = b[sep + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            let after = b.get(sep + 1 + digits);
            if (1..=9).contains(&digits) && !after.is_some_and(|c| c.is_ascii_alphanumeric()) {
                return std::str::from_utf8(&b[sep + 1..sep + 1 + digits]).ok()?.parse().ok();
            }
        }
        i += 1;
    }
    None
}
