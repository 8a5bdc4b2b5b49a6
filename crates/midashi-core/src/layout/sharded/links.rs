//! Links from a section to the same section in a versioned site's other versions, as
//! cards and bundles carry them (ids elided where a reader derives them; see [`super::ids`]).
use crate::answer::VersionLink;
use crate::format::reader::{Decode, ReadResult, Reader};
use serde::{Deserialize, Serialize};
/// A document another version's link points into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkDoc {
    /// Its version.
    pub version: String,
    /// Its page URL.
    pub url: String,
    /// Its path (from which its sections' ids derive).
    pub path: String,
}

/// The same section in another version, compactly: a bundle's links repeat a handful of
/// pages and mostly the section's own anchor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// Its section ordinal.
    pub section: u32,
    /// Its section id (0 in a file: derived from the linking section's headings).
    pub id: u64,
    /// Index into [`super::files::Bundle::link_docs`].
    pub doc: u32,
    /// Its anchor: `None` when it is the linking section's own, else `Some(anchor)`.
    pub anchor: Option<Option<String>>,
}

/// The [`VersionLink`] of `link` into one of `link_docs`, made from a section whose own
/// anchor is `own_anchor`.
pub(crate) fn version_link(
    link_docs: &[LinkDoc],
    link: &Link,
    own_anchor: Option<&str>,
) -> Option<VersionLink> {
    let doc = link_docs.get(link.doc as usize)?;
    let anchor = match &link.anchor {
        None => own_anchor,
        Some(a) => a.as_deref(),
    };
    Some(VersionLink::new(
        doc.version.clone(),
        link.id,
        &doc.url,
        anchor,
    ))
}

impl Decode for LinkDoc {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(LinkDoc {
            version: Decode::decode(r)?,
            url: Decode::decode(r)?,
            path: Decode::decode(r)?,
        })
    }
}

impl Decode for Link {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok(Link {
            section: r.u32()?,
            id: r.u64()?,
            doc: r.u32()?,
            anchor: Decode::decode(r)?,
        })
    }
}
