//! midashi-embed (placeholder until its work lands).
