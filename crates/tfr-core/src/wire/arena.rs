//! Node arenas kept for the next walk on the same thread.
//!
//! `list`, `show` and `stats` walk one small payload after another; allocating and freeing each
//! walk's arena cost more than walking a 250-byte Example. A dropped [`WireTree`] hands its arena
//! back here, and the next walk on that thread starts from it, already grown.
//!
//! [`WireTree`]: super::WireTree

use std::cell::RefCell;

use super::Node;

/// Arenas kept per thread: a walk needs one, a detection holds a few at once.
const KEPT: usize = 4;

/// Larger arenas (from a large payload) are freed, so that memory follows the current records.
const LARGEST_KEPT: usize = 1 << 16;

thread_local! {
    static SPARE: RefCell<Vec<Vec<Node>>> = const { RefCell::new(Vec::new()) };
}

/// An empty arena, with the capacity a walk on this thread left behind.
pub(super) fn take() -> Vec<Node> {
    SPARE
        .try_with(|spare| spare.borrow_mut().pop())
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Keeps `nodes`' allocation for the next walk, unless it is large or enough are kept.
pub(super) fn give_back(mut nodes: Vec<Node>) {
    if nodes.capacity() == 0 || nodes.capacity() > LARGEST_KEPT {
        return;
    }
    nodes.clear();
    // During thread exit the pool may be gone; the arena is then simply freed.
    let _ = SPARE.try_with(|spare| {
        if let Ok(mut spare) = spare.try_borrow_mut() {
            if spare.len() < KEPT {
                spare.push(nodes);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;

    #[test]
    fn a_dropped_tree_lends_its_arena_to_the_next_walk() {
        let schema = Schema::builtin();
        let payload = [0x08, 0x01, 0x10, 0x02];
        let first = super::super::walk(&payload, schema.table(), None);
        let capacity = first.nodes.capacity();
        let address = first.nodes.as_ptr();
        drop(first);
        let second = super::super::walk(&payload, schema.table(), None);
        assert_eq!(second.nodes.as_ptr(), address);
        assert_eq!(second.nodes.capacity(), capacity);
        assert_eq!(second.len(), 3);
    }

    #[test]
    fn large_arenas_are_freed() {
        let nodes: Vec<Node> = Vec::with_capacity(LARGEST_KEPT + 1);
        let before = SPARE.with(|s| s.borrow().len());
        give_back(nodes);
        assert_eq!(SPARE.with(|s| s.borrow().len()), before);
    }
}
