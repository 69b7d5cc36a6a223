//! Wildcards in file arguments that the shell did not expand (quoted, or from a script):
//! `'shards/train-*.tfrecord'` opens every matching shard, in name order.

use std::path::{Path, PathBuf};

/// Each argument as given, or, when it does not exist and its file name holds `*` or `?`,
/// the files in its directory that match (left as given when nothing matches, so the error
/// names it).
pub fn expand(paths: &[PathBuf]) -> Vec<PathBuf> {
    paths.iter().flat_map(|p| expand_one(p)).collect()
}

fn expand_one(path: &Path) -> Vec<PathBuf> {
    let pattern = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if path.exists() || !pattern.contains(['*', '?']) {
        return vec![path.to_path_buf()];
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let Ok(entries) = std::fs::read_dir(dir.unwrap_or(Path::new("."))) else {
        return vec![path.to_path_buf()];
    };
    let mut matches: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|name| matches(pattern, name))
        })
        .map(|e| dir.map_or_else(|| PathBuf::from(e.file_name()), |d| d.join(e.file_name())))
        .collect();
    matches.sort();
    if matches.is_empty() {
        vec![path.to_path_buf()]
    } else {
        matches
    }
}

/// Whether `name` matches `pattern`, where `*` is any run of characters and `?` any one.
fn matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // Greedy matching with backtracking to the last `*`: linear in practice, never exponential.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        match p.get(i) {
            Some('*') => {
                star = Some((i, j));
                i += 1;
            }
            Some(c) if *c == '?' || Some(c) == n.get(j) => {
                i += 1;
                j += 1;
            }
            _ => match star {
                Some((si, sj)) => {
                    i = si + 1;
                    j = sj + 1;
                    star = Some((si, sj + 1));
                }
                None => return false,
            },
        }
    }
    p.get(i..)
        .is_some_and(|rest| rest.iter().all(|c| *c == '*'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_like_a_shell() {
        assert!(matches("train-*.tfrecord", "train-00001.tfrecord"));
        assert!(matches("*", ""));
        assert!(matches("a?c", "abc"));
        assert!(!matches("a?c", "ac"));
        assert!(matches("*.tfrecord", "x.tfrecord"));
        assert!(!matches("*.tfrecord", "x.tfrecord.gz"));
        assert!(matches("*a*b*", "xxaxxbxx"));
    }

    #[test]
    fn a_quoted_pattern_expands_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b.tfrecord", "a.tfrecord", "c.txt"] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let found = expand(&[dir.path().join("*.tfrecord")]);
        assert_eq!(
            found,
            vec![dir.path().join("a.tfrecord"), dir.path().join("b.tfrecord")]
        );
        let missing = dir.path().join("*.nothing");
        assert_eq!(expand(std::slice::from_ref(&missing)), vec![missing]);
    }
}
