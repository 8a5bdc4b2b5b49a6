//! midashi-markdown (placeholder until its work lands).
