//! Framing: each shard's payload framed and compressed on every core, put into the
//! host's sink under a staging name, and renamed once its name is known (a store named by
//! rule hashes every shard of the store first).

use crate::store::{self, each_doc_shard};
use crate::{OnStep, Pages, ShardSink};
use sift_base::SiftError;
use sift_format::{ShardKind, ShardRef};
use std::ops::Range;

/// The sink, and how many shards went into it under a staging name.
pub(crate) struct Stage<'s> {
    pub(crate) sink: &'s mut (dyn ShardSink + Send),
    staged: usize,
}

impl<'s> Stage<'s> {
    pub(crate) fn new(sink: &'s mut (dyn ShardSink + Send)) -> Self {
        Stage { sink, staged: 0 }
    }

    /// Put a framed shard into the sink under a staging name of its own (two shards can
    /// have the same content), which is returned with its manifest entry.
    pub(crate) fn put(&mut self, (shard, (_, bytes)): FramedShard) -> Result<StagedShard, SiftError> {
        let staged = format!("staged-{}.bin", self.staged);
        self.staged += 1;
        self.sink.put(&staged, bytes)?;
        Ok((shard, staged))
    }

    /// Payloads of one kind framed and compressed on every core, then put into the sink in
    /// order.
    pub(crate) fn frame(
        &mut self,
        kind: ShardKind,
        payloads: Vec<Vec<u8>>,
        dictionary: Option<&[u8]>,
    ) -> Result<Vec<StagedShard>, SiftError> {
        use rayon::prelude::*;
        let framed: Vec<FramedShard> = payloads.into_par_iter().map(|p| frame_one(kind, &p, dictionary)).collect();
        framed.into_iter().map(|f| self.put(f)).collect()
    }
}

/// Shard payloads to frame (or framed already), each kind's a block of its own.
pub(crate) struct Framer<'a> {
    blocks: Vec<Block>,
    /// Shards in the blocks so far.
    shards: usize,
    /// The doc store's dictionary, which doc shards are compressed after.
    dictionary: Option<&'a [u8]>,
}

/// A shard framed under its content name, with its manifest entry.
pub(crate) type FramedShard = (ShardRef, (String, Vec<u8>));

/// A shard in the sink: its manifest entry (whose file is the name it will have) and its
/// staging name.
pub(crate) type StagedShard = (ShardRef, String);

enum Block {
    Payloads(ShardKind, Vec<Vec<u8>>),
    Staged(Vec<StagedShard>),
}

/// A payload framed and compressed (a doc shard after the dictionary, when there is one).
fn frame_one(kind: ShardKind, payload: &[u8], dictionary: Option<&[u8]>) -> FramedShard {
    match (kind, dictionary) {
        (ShardKind::Docs, Some(d)) => named(kind, sift_format::encode_shard_with_dictionary(kind, payload, d)),
        _ => named(kind, sift_format::encode_shard(kind, payload)),
    }
}

/// The doc store's shards compressed as they are made, a batch at a time on every core, and
/// put into the sink: each one's (first doc, docs, first position of a part), and the
/// staged shards.
pub(crate) fn frame_doc_store(
    pages: &Pages,
    section_starts: &[Vec<u32>],
    plan: &store::StorePlan,
    dictionary: Option<&[u8]>,
    on_step: &OnStep,
    stage: &mut Stage,
) -> Result<(Vec<(u32, u32, Option<u32>)>, Vec<StagedShard>), SiftError> {
    let (mut places, mut staged, mut batch) = (Vec::new(), Vec::new(), Vec::new());
    let total = plan.shard_count();
    let mut compress = |batch: &mut Vec<Vec<u8>>, staged: &mut Vec<StagedShard>| -> Result<(), SiftError> {
        staged.extend(stage.frame(ShardKind::Docs, std::mem::take(batch), dictionary)?);
        on_step.progress(staged.len(), total);
        Ok(())
    };
    each_doc_shard(
        pages,
        section_starts,
        plan,
        |_| true,
        |_, (first_doc, n, first_pos, payload)| {
            places.push((first_doc, n, first_pos));
            batch.push(payload);
            if batch.len() == FRAMED_AT_A_TIME {
                compress(&mut batch, &mut staged)?;
            }
            Ok(())
        },
    )?;
    compress(&mut batch, &mut staged)?;
    Ok((places, staged))
}

/// Payloads framed at a time: each is freed once framed, so a big site's bundle is not
/// held both ways at once.
pub(crate) const FRAMED_AT_A_TIME: usize = 256;

impl<'a> Framer<'a> {
    pub(crate) fn new(dictionary: Option<&'a [u8]>) -> Self {
        Framer { blocks: Vec::new(), shards: 0, dictionary }
    }

    /// Add a kind's payloads; the block they take.
    pub(crate) fn add(&mut self, kind: ShardKind, payloads: impl IntoIterator<Item = Vec<u8>>) -> Range<usize> {
        let payloads: Vec<Vec<u8>> = payloads.into_iter().collect();
        self.block(payloads.len(), Block::Payloads(kind, payloads))
    }

    /// Add shards in the sink already (the doc store's, the terms'); the block they take.
    pub(crate) fn add_staged(&mut self, staged: Vec<StagedShard>) -> Range<usize> {
        self.block(staged.len(), Block::Staged(staged))
    }

    fn block(&mut self, n: usize, block: Block) -> Range<usize> {
        self.blocks.push(block);
        self.shards += n;
        self.shards - n..self.shards
    }

    /// Every payload framed and compressed (on every core, a batch at a time, each freed
    /// once framed) and put into the sink.
    pub(crate) fn frame(self, on_step: &OnStep, stage: &mut Stage) -> Result<Framed, SiftError> {
        let mut shards = Vec::with_capacity(self.shards);
        on_step.progress(0, self.shards);
        for block in self.blocks {
            match block {
                Block::Staged(staged) => shards.extend(staged),
                Block::Payloads(kind, payloads) => {
                    let mut payloads = payloads.into_iter();
                    loop {
                        let batch: Vec<Vec<u8>> = payloads.by_ref().take(FRAMED_AT_A_TIME).collect();
                        if batch.is_empty() {
                            break;
                        }
                        shards.extend(stage.frame(kind, batch, self.dictionary)?);
                        on_step.progress(shards.len(), self.shards);
                    }
                }
            }
        }
        Ok(Framed { shards })
    }
}

/// The shards in the sink, with their manifest entries.
pub(crate) struct Framed {
    pub(crate) shards: Vec<StagedShard>,
}

impl Framed {
    pub(crate) fn refs(&self, block: Range<usize>) -> Vec<ShardRef> {
        self.shards[block].iter().map(|(r, _)| r.clone()).collect()
    }

    /// Name a store's shards by rule, `<prefix>-<hash>-<n>.bin`, the hash being over their
    /// content names (so any change to the store renames every shard of it: still safe to
    /// cache forever); the manifest then lists them without a size and checksum each.
    /// Returns `<prefix>-<hash>`.
    pub(crate) fn name_by_rule(&mut self, block: Range<usize>, kind: ShardKind) -> String {
        let mut h = blake3::Hasher::new();
        for (r, _) in &self.shards[block.clone()] {
            h.update(r.file.as_bytes());
        }
        let files = format!("{}-{}", kind.prefix(), &h.finalize().to_hex()[..16]);
        for (n, (r, _)) in self.shards[block].iter_mut().enumerate() {
            *r = ShardRef { file: sift_format::store_file(&files, n), check: None };
        }
        files
    }
}

/// A framed shard under its content name, with its manifest entry.
pub(crate) fn named(kind: ShardKind, bytes: Vec<u8>) -> FramedShard {
    let hash = blake3::hash(&bytes);
    let file = format!("{}-{}.bin", kind.prefix(), &hash.to_hex()[..16]);
    let r = ShardRef::new(file.clone(), bytes.len() as u64, sift_base::crc32::crc32(&bytes));
    (r, (file, bytes))
}
