//! Posting lists: for each term, the sections it occurs in with a term frequency per field.
//!
//! Layout of one list (all inside one byte buffer; the term dictionary maps a term to the
//! offset of its list):
//!
//! ```text
//! idf: f32 LE  — precomputed at build time, so queries do no transcendental maths and
//!                native and wasm scores agree to the bit
//! df:  varint  — number of sections
//! df × { section delta: varint, field mask: u8, one varint tf per set bit of the mask }
//! ```

use crate::rank::fields::NUM_FIELDS;

/// Appends `v` as a LEB128 varint.
pub fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Reads a LEB128 varint at `*pos`, advancing it; `None` if the buffer ends or it overflows.
#[inline(always)]
pub fn read_varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    let mut shift = 0u32;
    loop {
        let byte = *buf.get(*pos)?;
        *pos += 1;
        if shift >= 64 {
            return None;
        }
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
        shift += 7;
    }
}

/// One entry of a posting list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    /// Section ordinal.
    pub section: u32,
    /// Term frequency per field.
    pub tf: [u32; NUM_FIELDS],
}

/// Writes one posting list. `postings` must be sorted by section.
pub fn write_list(out: &mut Vec<u8>, idf: f32, postings: &[Posting]) {
    out.extend_from_slice(&idf.to_le_bytes());
    write_varint(out, postings.len() as u64);
    let mut prev = 0u32;
    for p in postings {
        write_varint(out, u64::from(p.section - prev));
        prev = p.section;
        let mut mask = 0u8;
        for (f, &tf) in p.tf.iter().enumerate() {
            if tf > 0 {
                mask |= 1 << f;
            }
        }
        out.push(mask);
        for &tf in p.tf.iter().filter(|&&tf| tf > 0) {
            write_varint(out, u64::from(tf));
        }
    }
}

/// A decoded view of one posting list.
#[derive(Debug, Clone)]
pub struct ListReader<'a> {
    buf: &'a [u8],
    pos: usize,
    left: u64,
    section: u32,
    /// Inverse document frequency stored with the list.
    pub idf: f32,
    /// Number of sections in the list.
    pub df: u64,
}

impl<'a> ListReader<'a> {
    /// Opens the list at `offset`; `None` if the bytes are malformed.
    pub fn open(buf: &'a [u8], offset: usize) -> Option<Self> {
        let idf_bytes = buf.get(offset..offset.checked_add(4)?)?;
        let idf = f32::from_le_bytes([idf_bytes[0], idf_bytes[1], idf_bytes[2], idf_bytes[3]]);
        let mut pos = offset + 4;
        let df = read_varint(buf, &mut pos)?;
        Some(ListReader {
            buf,
            pos,
            left: df,
            section: 0,
            idf,
            df,
        })
    }
}

impl Iterator for ListReader<'_> {
    type Item = Posting;

    fn next(&mut self) -> Option<Posting> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let delta = read_varint(self.buf, &mut self.pos)?;
        self.section = self.section.checked_add(u32::try_from(delta).ok()?)?;
        let mask = *self.buf.get(self.pos)?;
        self.pos += 1;
        let mut tf = [0u32; NUM_FIELDS];
        for (f, slot) in tf.iter_mut().enumerate() {
            if mask & (1 << f) != 0 {
                *slot = u32::try_from(read_varint(self.buf, &mut self.pos)?).ok()?;
            }
        }
        Some(Posting {
            section: self.section,
            tf,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_round_trip() {
        let list = vec![
            Posting {
                section: 3,
                tf: [1, 0, 0, 2, 0],
            },
            Posting {
                section: 300_000,
                tf: [0, 0, 0, 0, 7000],
            },
        ];
        let mut buf = vec![9, 9];
        write_list(&mut buf, 1.5, &list);
        let r = ListReader::open(&buf, 2).unwrap();
        assert_eq!(r.df, 2);
        assert_eq!(r.idf, 1.5);
        assert_eq!(r.collect::<Vec<_>>(), list);
        // A truncated list ends early instead of panicking.
        let short = &buf[..buf.len() - 2];
        assert!(ListReader::open(short, 2).unwrap().count() < 2);
    }
}
