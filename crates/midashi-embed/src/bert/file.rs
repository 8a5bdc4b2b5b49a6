//! The encoder file an index ships (`model.<hash>.bin`), writer beside reader.
//!
//! `MBRT`, version u8, the attention heads u32 and the layer norms' epsilon f32, a count of
//! tensors u32, then each tensor as a name (u16 length, UTF-8) and an entry (u32 length, then
//! a packed entry of `crate::packed` — `MQ4G`, `MQ6G`, `MQ8C` — or a plain `MF32` one), and last a
//! CRC-32 of everything before it. Tensors keep the names `scripts/model/export_onnx.py` gives
//! the ONNX initializers (`encoder.layer.3.attention.self.query.weight`, …), so the file is
//! readable against the exporter, and a tensor is found by name, not by position.

use crate::error::EmbedError;
use crate::packed::shape;

const MAGIC: &[u8; 4] = b"MBRT";
/// Bumped when a reader of the previous version would misread the file.
pub(super) const VERSION: u8 = 1;
const PLAIN: &[u8; 4] = b"MF32";

/// Whether `bytes` start like an encoder file (rather than ONNX or a prepared graph's tar).
pub fn is_encoder_file(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// An encoder file's header and its tensors' entries, borrowed from the file's bytes.
#[derive(Debug)]
pub(super) struct Entries<'a> {
    pub heads: usize,
    pub eps: f32,
    pub tensors: Vec<(&'a str, &'a [u8])>,
}

fn damaged(what: &str) -> EmbedError {
    EmbedError::BadModel(format!(
        "the encoder file (model.<hash>.bin) is damaged: {what}; fetch or copy the index folder \
         again, or rebuild it"
    ))
}

impl<'a> Entries<'a> {
    /// Reads the header and the table of entries, checking the checksum first.
    pub(super) fn read(bytes: &'a [u8]) -> Result<Self, EmbedError> {
        let body = bytes
            .strip_prefix(MAGIC)
            .ok_or_else(|| damaged("it does not start with MBRT"))?;
        let (body, crc) = body
            .split_last_chunk::<4>()
            .ok_or_else(|| damaged("truncated"))?;
        if checksum(&bytes[..bytes.len() - 4]) != u32::from_le_bytes(*crc) {
            return Err(damaged(
                "its checksum does not match (truncated or altered)",
            ));
        }
        let (&version, mut rest) = body.split_first().ok_or_else(|| damaged("truncated"))?;
        if version != VERSION {
            return Err(EmbedError::BadModel(format!(
                "the encoder file is version {version}, this midashi reads version {VERSION}; \
                 rebuild the index with this midashi (or use the midashi that built it)"
            )));
        }
        let mut take = |n: usize| -> Result<&'a [u8], EmbedError> {
            if rest.len() < n {
                return Err(damaged("truncated"));
            }
            let (head, tail) = rest.split_at(n);
            rest = tail;
            Ok(head)
        };
        let u32_of = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let heads = u32_of(take(4)?) as usize;
        let eps = f32::from_le_bytes(take(4)?.try_into().map_err(|_| damaged("header"))?);
        let count = u32_of(take(4)?) as usize;
        let mut tensors = Vec::with_capacity(count.min(1024));
        for _ in 0..count {
            let len = take(2)?;
            let name = take(usize::from(u16::from_le_bytes([len[0], len[1]])))?;
            let name = std::str::from_utf8(name).map_err(|_| damaged("a tensor name"))?;
            let len = u32_of(take(4)?) as usize;
            tensors.push((name, take(len)?));
        }
        if !rest.is_empty() {
            return Err(damaged("bytes after the last tensor"));
        }
        Ok(Entries {
            heads,
            eps,
            tensors,
        })
    }

    /// The entry of the tensor called `name`.
    pub(super) fn get(&self, name: &str) -> Option<&'a [u8]> {
        self.tensors
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, e)| *e)
    }

    /// The entry of the tensor called `name`, read as its kind (its length checked against
    /// its shape, so a damaged header never makes a reader allocate for a shape the bytes do
    /// not hold).
    fn entry(&self, name: &str) -> Result<Entry<'a>, EmbedError> {
        let bytes = self.get(name).ok_or_else(|| {
            EmbedError::BadModel(format!("the encoder file has no tensor {name}"))
        })?;
        Entry::read(bytes).ok_or_else(|| damaged(&format!("tensor {name}")))
    }

    /// The shape of the tensor called `name`.
    pub(super) fn dims(&self, name: &str) -> Result<Vec<usize>, EmbedError> {
        Ok(self.entry(name)?.dims())
    }

    /// Each row of the tensor called `name` (all dimensions but the last flattened)
    /// expanded to f32, in order, to `f` with its index; without expanding the whole tensor
    /// first (the dense layers' weights go straight into their panels).
    pub(super) fn rows(&self, name: &str, f: impl FnMut(usize, &[f32])) -> Result<(), EmbedError> {
        self.entry(name)?.for_each_row(f);
        Ok(())
    }

    /// Each row of the tensor called `name` as integers with their columns' scales
    /// ([`Entry::for_each_int_row`]); `Ok(false)` if it is not stored so.
    pub(super) fn int_rows(
        &self,
        name: &str,
        f: impl FnMut(usize, &[f32], &[i8]),
    ) -> Result<bool, EmbedError> {
        Ok(self.entry(name)?.for_each_int_row(f))
    }

    /// The tensor called `name` expanded to f32 (int8 values as f32), with its shape.
    pub(super) fn f32(&self, name: &str) -> Result<(Vec<usize>, Vec<f32>), EmbedError> {
        let entry = self.entry(name)?;
        let mut values = Vec::new();
        entry.for_each_row(|_, row| values.extend_from_slice(row));
        Ok((entry.dims(), values))
    }
}

/// A tensor's entry, by kind: the one place the file's entry kinds are told apart.
enum Entry<'a> {
    Q4(crate::packed::q4::Table<'a>),
    Q6(crate::packed::q6::Table<'a>),
    Q8(&'a [u8], Vec<usize>),
    Plain(Vec<usize>, Vec<f32>),
}

impl<'a> Entry<'a> {
    fn read(bytes: &'a [u8]) -> Option<Self> {
        Some(match bytes.get(..4)? {
            b"MQ4G" => Entry::Q4(crate::packed::q4::Table::read(bytes)?),
            b"MQ6G" => Entry::Q6(crate::packed::q6::Table::read(bytes)?),
            b"MQ8C" => Entry::Q8(bytes, crate::packed::q8c::dims(bytes)?),
            _ => {
                let (dims, values) = unpack_plain(bytes)?;
                Entry::Plain(dims, values)
            }
        })
    }

    fn dims(&self) -> Vec<usize> {
        match self {
            Entry::Q4(t) => t.dims.clone(),
            Entry::Q6(t) => t.dims.clone(),
            Entry::Q8(_, dims) | Entry::Plain(dims, _) => dims.clone(),
        }
    }

    /// Each row as integers and their columns' scales (value = integer × scale exactly),
    /// in order, to `f`; false, having called it for no row, for an entry that does not
    /// store its values so (f32 values, a table of rounded int8 values).
    fn for_each_int_row(&self, f: impl FnMut(usize, &[f32], &[i8])) -> bool {
        match self {
            Entry::Q4(t) => t.for_each_int_row(f),
            Entry::Q6(t) => {
                t.for_each_int_row(f);
                true
            }
            Entry::Q8(bytes, _) => crate::packed::q8c::for_each_int_row(bytes, f).is_some(),
            Entry::Plain(..) => false,
        }
    }

    fn for_each_row(&self, mut f: impl FnMut(usize, &[f32])) {
        match self {
            Entry::Q4(t) => t.for_each_row(f),
            Entry::Q6(t) => t.for_each_row(f),
            Entry::Q8(bytes, _) => {
                // Its length was checked when it was read.
                let _ = crate::packed::q8c::for_each_row(bytes, f);
            }
            Entry::Plain(dims, v) => {
                let columns = dims.last().copied().unwrap_or(1).max(1);
                v.chunks_exact(columns)
                    .enumerate()
                    .for_each(|(i, r)| f(i, r));
            }
        }
    }
}

/// CRC-32 of `bytes`, 64 KB per call: V8 optimises a wasm function between calls, never
/// during one, so one call over a 10 MB model ran wholly in its baseline code.
fn checksum(bytes: &[u8]) -> u32 {
    #[inline(never)]
    fn chunk(hasher: &mut crc32fast::Hasher, bytes: &[u8]) {
        hasher.update(bytes);
    }
    let mut hasher = crc32fast::Hasher::new();
    for c in bytes.chunks(1 << 16) {
        chunk(&mut hasher, c);
    }
    hasher.finalize()
}

fn unpack_plain(entry: &[u8]) -> Option<(Vec<usize>, Vec<f32>)> {
    let (dims, rest) = shape::dims_at(entry.strip_prefix(PLAIN)?)?;
    let count = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
    if rest.len() != count.checked_mul(4)? {
        return None;
    }
    let values = rest
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Some((dims, values))
}

/// `values` (row-major, `dims` its shape) as a plain f32 entry: biases, norms, small tables.
#[cfg(feature = "onnx")]
pub(super) fn pack_plain(values: &[f32], dims: &[usize]) -> Vec<u8> {
    let mut out = PLAIN.to_vec();
    shape::push_dims(&mut out, dims);
    for v in values {
        out.extend(v.to_le_bytes());
    }
    out
}

/// The file of `tensors` (name, entry), in the order given.
#[cfg(feature = "onnx")]
pub(super) fn write(heads: usize, eps: f32, tensors: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.push(VERSION);
    out.extend((heads as u32).to_le_bytes());
    out.extend(eps.to_le_bytes());
    out.extend((tensors.len() as u32).to_le_bytes());
    for (name, entry) in tensors {
        out.extend((name.len() as u16).to_le_bytes());
        out.extend(name.as_bytes());
        out.extend((entry.len() as u32).to_le_bytes());
        out.extend(entry);
    }
    let crc = checksum(&out);
    out.extend(crc.to_le_bytes());
    out
}

#[cfg(all(test, feature = "onnx"))]
mod tests {
    use super::*;

    #[test]
    fn entries_come_back_and_damage_is_refused() {
        let bias = pack_plain(&[1.0, -2.5, 3.25], &[3]);
        let file = write(12, 1e-12, &[("a.bias".into(), bias.clone())]);
        assert!(is_encoder_file(&file));
        let entries = Entries::read(&file).unwrap();
        assert_eq!((entries.heads, entries.eps), (12, 1e-12));
        assert_eq!(
            entries.f32("a.bias").unwrap(),
            (vec![3], vec![1.0, -2.5, 3.25])
        );
        assert!(entries.f32("b").is_err());
        // Truncated, altered, a newer version: each a message, never a panic.
        for bad in [file[..file.len() - 1].to_vec(), file[..5].to_vec(), {
            let mut f = file.clone();
            f[20] ^= 1;
            f
        }] {
            let e = Entries::read(&bad).unwrap_err().to_string();
            assert!(e.contains("damaged"), "{e}");
        }
        let mut newer = file.clone();
        newer[4] = VERSION + 1;
        let n = newer.len();
        let crc = checksum(&newer[..n - 4]);
        newer[n - 4..].copy_from_slice(&crc.to_le_bytes());
        let e = Entries::read(&newer).unwrap_err().to_string();
        assert!(e.contains("rebuild the index"), "{e}");
    }
}
