mod lists_and_columns {
    use crate::format::FileKind;
    use crate::layout::sharded::columns::Facets;
    use crate::layout::sharded::columns::{facet_columns, shard_columns};
    use crate::layout::sharded::files::*;
    use crate::layout::sharded::names::*;
    use crate::layout::sharded::scores::*;
    use crate::rank::pipeline::SectionFacts;

    #[test]
    fn section_lists_round_trip_and_refuse_damage() {
        for list in [
            vec![],
            vec![0],
            vec![0, 1, 2, 900, 70_000],
            vec![5, 6, 4_000_000],
        ] {
            let bytes = write_sections(&list);
            assert_eq!(read_sections(&bytes, 4_000_001), Some(list));
        }
        // Past the index's sections, or a cut varint: refused, not trusted.
        assert_eq!(read_sections(&write_sections(&[3, 10]), 10), None);
        assert_eq!(read_sections(&[0x80], 10), None);
    }

    #[test]
    fn scored_lists_round_trip() {
        let list = vec![
            ScoredPosting {
                section: 3,
                score: 1.25,
                facts: SectionFacts {
                    depth: 2,
                    subtree: 4,
                    family: Some(0),
                    bare: false,
                },
                heading: Some((3, 2)),
            },
            ScoredPosting {
                section: 70_000,
                score: 0.0,
                facts: SectionFacts {
                    depth: 6,
                    subtree: 0,
                    family: None,
                    bare: false,
                },
                heading: None,
            },
        ];
        for versioned in [true, false] {
            let mut buf = vec![7];
            write_scored_list(&mut buf, 1, versioned, &list);
            let (df, got) = read_scored_list(&buf, 1, versioned, 70_001, &[]).unwrap();
            assert_eq!(df, 1);
            let want: Vec<ScoredPosting> = list
                .iter()
                .map(|p| ScoredPosting {
                    facts: SectionFacts {
                        family: p.facts.family.filter(|_| versioned),
                        ..p.facts
                    },
                    ..*p
                })
                .collect();
            assert_eq!(got, want);
            // What the exact-heading lift reads: the heading postings alone, as written.
            let heads = read_heading_postings(&buf, 1, versioned, 70_001, &[]).unwrap();
            assert_eq!(heads, [(3, 3, 2)]);
            // A cut list is an error, not a panic.
            assert!(read_scored_list(&buf[..buf.len() - 1], 1, versioned, 70_001, &[]).is_none());
            assert!(
                read_heading_postings(&buf[..buf.len() - 1], 1, versioned, 70_001, &[]).is_none()
            );
        }
    }

    #[test]
    fn quantised_scores_take_one_byte_each_and_others_are_kept_exactly() {
        let list = |scores: &[f32]| -> Vec<ScoredPosting> {
            scores
                .iter()
                .enumerate()
                .map(|(i, &score)| ScoredPosting {
                    section: i as u32,
                    score,
                    facts: SectionFacts::default(),
                    heading: None,
                })
                .collect()
        };
        let written = |scores: &[f32]| {
            let mut buf = Vec::new();
            write_scored_list(&mut buf, scores.len() as u64, false, &list(scores));
            let (_, got) = read_scored_list(&buf, 0, false, 1_000, &[]).unwrap();
            let got: Vec<u32> = got.iter().map(|p| p.score.to_bits()).collect();
            let want: Vec<u32> = scores.iter().map(|s| s.to_bits()).collect();
            assert_eq!(got, want, "{scores:?}");
            buf.len()
        };
        // Quantised BM25F scores, zeros among them, over 15 binades: a byte each (2 bytes of
        // counts, 1 base, then per posting a section delta, a score byte and a facts byte).
        let q = |x: f32| crate::rank::bm25::quantise(x);
        let mut bm25 = vec![0.0, q(0.012), q(0.7), q(1.3), q(9.99), q(100.0), 0.0];
        bm25.push(q(0.012 * 2f32.powi(14)));
        assert_eq!(written(&bm25), 3 + 3 * bm25.len());
        // Otherwise f32 planes, exactly: 16 binades, unquantised, negative, NaN, subnormal.
        for odd in [
            vec![q(0.012), q(0.012 * 2f32.powi(15))],
            vec![1.2345],
            vec![q(1.0), -q(1.0)],
            vec![f32::NAN, q(2.0)],
            vec![f32::from_bits(1 << 19)],
        ] {
            assert_eq!(written(&odd), 3 + 6 * odd.len(), "{odd:?}");
        }
        // A damaged score byte (a zero exponent offset with mantissa bits) is refused.
        let mut buf = Vec::new();
        write_scored_list(&mut buf, 1, false, &list(&[q(1.0)]));
        buf[4] = 0x03;
        assert!(read_scored_list(&buf, 0, false, 1_000, &[]).is_none());
    }

    /// A scored list walked without keeping it, or read whole, gives what was written: the
    /// same sections, score bits, facts and heading flags, bareness from the shard's list.
    fn visited(
        buf: &[u8],
        versioned: bool,
        n: u32,
        bare: &[u32],
    ) -> Option<Vec<(u32, u32, SectionFacts)>> {
        let mut got = Vec::new();
        visit_scored_list(buf, 0, versioned, n, bare, |s, score, f, _| {
            got.push((s, score.to_bits(), f))
        })?;
        Some(got)
    }

    proptest::proptest! {
        #[test]
        fn visiting_a_list_reads_what_reading_it_whole_reads(
            postings in proptest::collection::vec(
                (1u32..50, 0u8..8, 0u32..5, proptest::option::of(0u32..9), proptest::bool::ANY, 0u8..4),
                0..60,
            ),
            versioned in proptest::bool::ANY,
            bare_every in 1u32..5,
        ) {
            let q = |x: f32| crate::rank::bm25::quantise(x);
            let mut section = 0u32;
            let list: Vec<ScoredPosting> = postings
                .iter()
                .enumerate()
                .map(|(i, &(gap, depth, subtree, family, heading, kind))| {
                    section += gap;
                    ScoredPosting {
                        section,
                        // Zeros, quantised scores, and (kind 3) an unquantised one: planes.
                        score: match kind {
                            0 => 0.0,
                            3 => 1.0 + i as f32 / 7.0,
                            _ => q(0.3 + i as f32),
                        },
                        facts: SectionFacts {
                            depth: depth % 7,
                            subtree,
                            family: family.filter(|_| versioned),
                            bare: false,
                        },
                        heading: heading.then_some((3, 1)),
                    }
                })
                .collect();
            let n = section + 10;
            let bare: Vec<u32> = list.iter().map(|p| p.section).filter(|s| s % bare_every == 0).collect();
            let mut buf = Vec::new();
            write_scored_list(&mut buf, list.len() as u64, versioned, &list);
            // What was written, bareness from the shard's list.
            let want: Vec<(u32, u32, SectionFacts)> = list
                .iter()
                .map(|p| {
                    let facts = SectionFacts { bare: bare.contains(&p.section), ..p.facts };
                    (p.section, p.score.to_bits(), facts)
                })
                .collect();
            let (_, read) = read_scored_list(&buf, 0, versioned, n, &bare).unwrap();
            let whole: Vec<(u32, u32, SectionFacts)> =
                read.iter().map(|p| (p.section, p.score.to_bits(), p.facts)).collect();
            proptest::prop_assert_eq!(&whole, &want);
            let headings: Vec<bool> = read.iter().map(|p| p.heading.is_some()).collect();
            let written: Vec<bool> = list.iter().map(|p| p.heading.is_some()).collect();
            proptest::prop_assert_eq!(headings, written);
            proptest::prop_assert_eq!(visited(&buf, versioned, n, &bare), Some(want));
            // Cut anywhere: refused or read, never a panic; a section past the index: refused.
            for cut in 0..buf.len() {
                let _ = visited(&buf[..cut], versioned, n, &bare);
            }
            if !list.is_empty() {
                proptest::prop_assert_eq!(visited(&buf, versioned, section, &bare), None);
            }
        }
    }

    #[test]
    fn a_damaged_score_byte_fails_a_visit_too() {
        let list = [ScoredPosting {
            section: 0,
            score: crate::rank::bm25::quantise(1.0),
            facts: SectionFacts::default(),
            heading: None,
        }];
        let mut buf = Vec::new();
        write_scored_list(&mut buf, 1, false, &list);
        assert!(visited(&buf, false, 1_000, &[]).is_some());
        buf[4] = 0x03;
        assert_eq!(visited(&buf, false, 1_000, &[]), None);
    }

    /// Columns of two documents.
    fn columns(
        sections: [u32; 2],
        version: [u32; 2],
        lang: [u32; 2],
        category: [u32; 2],
        tags: Vec<Vec<u32>>,
    ) -> facet_columns::Columns {
        facet_columns::Columns {
            sections: sections.to_vec(),
            version: version.to_vec(),
            lang: lang.to_vec(),
            category: category.to_vec(),
            tags,
        }
    }

    fn directory(docs: Vec<Facets>) -> Directory {
        Directory {
            n_sections: docs.iter().map(|d| d.sections).sum(),
            versioned: false,
            shards: vec![ShardRef {
                first_term: String::new(),
                group: 7,
            }],
            lexicon: "lexicon.0000000000000001.bin".into(),
            tree: "tree.0000000000000002.bin".into(),
            paths: "paths.0000000000000003.bin".into(),
            docs,
            strings: vec!["7.4".into(), "en".into(), "guide".into()],
            versions: Vec::new(),
            synonyms: Vec::new(),
            card_sections: 8,
            card_lines: 12,
            cards_salt: 1,
        }
    }

    #[test]
    fn facets_are_written_as_columns_and_read_back_as_rows() {
        let docs = vec![
            Facets {
                sections: 3,
                version: Some(0),
                lang: Some(1),
                category: None,
                tags: vec![2],
            },
            Facets {
                sections: 1,
                version: Some(0),
                lang: None,
                category: Some(2),
                tags: Vec::new(),
            },
        ];
        let dir = directory(docs.clone());
        let bytes = crate::format::encode(FileKind::Directory, &dir).unwrap();
        let back: Directory =
            crate::format::decode(FileKind::Directory, "directory.x.bin", &bytes).unwrap();
        assert_eq!(back, dir);
        // Column by column: the sections' counts first, then each version (0 = none, i + 1).
        let payload = postcard::to_allocvec(&dir).unwrap();
        let columns = columns([3, 1], [1, 1], [2, 0], [0, 3], vec![vec![2], Vec::new()]);
        let columns = postcard::to_allocvec(&columns).unwrap();
        assert!(payload.windows(columns.len()).any(|w| w == columns));
    }

    #[test]
    fn shards_are_written_as_first_terms_and_group_hashes() {
        let mut dir = directory(vec![Facets::default()]);
        dir.shards = ["", "b", "c", "d", "e", "f", "g", "h"]
            .iter()
            .enumerate()
            .map(|(i, t)| ShardRef {
                first_term: t.to_string(),
                group: 0x10_0000 + i as u32,
            })
            .collect();
        // Every shard of a group has its group's hash.
        let mut group = 0;
        for (i, r) in dir.shards.iter_mut().enumerate() {
            if starts_group(i, &r.first_term) {
                group = r.group;
            }
            r.group = group;
        }
        let groups = (0..8)
            .filter(|&i| starts_group(i, &dir.shards[i].first_term))
            .count();
        let bytes = crate::format::encode(FileKind::Directory, &dir).unwrap();
        let back: Directory =
            crate::format::decode(FileKind::Directory, "directory.x.bin", &bytes).unwrap();
        assert_eq!(back, dir);
        // Three bytes per group, none per shard.
        let columns = shard_columns::Columns {
            first_terms: dir.shards.iter().map(|r| r.first_term.clone()).collect(),
            groups: vec![0; 3 * groups],
        };
        let encoded = postcard::to_allocvec(&columns).unwrap();
        let payload = postcard::to_allocvec(&dir).unwrap();
        let at = encoded.len() - 3 * groups;
        assert!(payload.windows(at).any(|w| w == &encoded[..at]));
        // A group hash too few or too many is refused.
        for wrong in [3 * groups - 3, 3 * groups + 3, 3 * groups + 1] {
            let columns = shard_columns::Columns {
                first_terms: columns.first_terms.clone(),
                groups: vec![0; wrong],
            };
            assert!(columns.rows().is_none(), "{wrong} bytes");
        }
    }

    #[test]
    fn facet_columns_of_different_lengths_are_refused() {
        let mut short = columns([1, 1], [0, 0], [0, 0], [0, 0], vec![Vec::new(); 2]);
        short.version.pop();
        assert!(short.rows().is_none());
        // Through the file reader: a directory whose version column is one short.
        let dir = directory(vec![Facets::default(), Facets::default()]);
        let good = postcard::to_allocvec(&dir).unwrap();
        let fields = columns([0, 0], [0, 0], [0, 0], [0, 0], vec![Vec::new(); 2]);
        let fields = postcard::to_allocvec(&fields).unwrap();
        let at = good
            .windows(fields.len())
            .position(|w| w == fields)
            .unwrap();
        let mut bad = good[..at].to_vec();
        bad.extend_from_slice(&[2, 0, 0, 1, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0]);
        bad.extend_from_slice(&good[at + fields.len()..]);
        let framed = crate::format::frame(FileKind::Directory, &bad);
        let err =
            crate::format::decode::<Directory>(FileKind::Directory, "directory.x.bin", &framed)
                .unwrap_err();
        assert_eq!(err.code(), "MALFORMED", "{err}");
    }
}
