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

#[cfg(test)]
mod bundle_ids {
    use crate::format::FileKind;
    use crate::layout::sharded::files::*;
    use crate::layout::sharded::links::{Link, LinkDoc};
    use crate::layout::sharded::names::*;
    use crate::section::records::{DocRecord, SectionRecord};
    use crate::section::{Hints, SectionId};

    fn doc(path: &str, first_section: u32, section_count: u32) -> DocRecord {
        DocRecord {
            path: path.into(),
            url: format!("/{path}"),
            title: "T".into(),
            source: "# T\n".into(),
            hints: Hints::default(),
            first_section,
            section_count,
        }
    }

    fn section(
        doc: u32,
        parent: Option<u32>,
        heading: &str,
        crumb: &[&str],
        id: u64,
    ) -> SectionRecord {
        SectionRecord {
            id,
            doc,
            anchor: None,
            heading: heading.into(),
            depth: crumb.len() as u8 - 1,
            heading_path: crumb.iter().map(|h| h.to_string()).collect(),
            parent,
            section_number: 1,
            start_line: 1,
            end_line: 1,
            own_end_line: 1,
            token_estimate: 1,
        }
    }

    fn id(path: &str, headings: &[&str], occurrence: u32) -> u64 {
        let h: Vec<String> = headings.iter().map(|s| s.to_string()).collect();
        SectionId::new(path, &h, occurrence).0
    }

    #[test]
    fn derivable_ids_are_left_out_and_restored() {
        // Two documents; "Notes" twice in the second (occurrences 0 and 1); in the first, an
        // H1 standing in for the title (its breadcrumb is the title, its id hashes its own
        // heading, and so do its children's); one id that does not derive at all.
        let original = Bundle {
            first_doc: 4,
            docs: vec![doc("7.5/a.md", 10, 3), doc("7.5/b.md", 13, 3)],
            sections: vec![
                section(4, None, "A", &["A"], id("7.5/a.md", &[], 0)),
                section(4, Some(10), "Intro", &["A"], id("7.5/a.md", &["Intro"], 0)),
                section(4, Some(11), "Setup", &["A", "Setup"], 0xdead_beef),
                section(5, None, "B", &["B"], id("7.5/b.md", &[], 0)),
                section(
                    5,
                    Some(13),
                    "Notes",
                    &["B", "Notes"],
                    id("7.5/b.md", &["Notes"], 0),
                ),
                section(
                    5,
                    Some(13),
                    "Notes",
                    &["B", "Notes"],
                    id("7.5/b.md", &["Notes"], 1),
                ),
            ],
            link_docs: vec![LinkDoc {
                version: "7.4".into(),
                url: "/7.4/b".into(),
                path: "7.4/b.md".into(),
            }],
            links: vec![
                vec![],
                vec![],
                vec![],
                vec![],
                vec![],
                vec![
                    Link {
                        section: 40,
                        id: id("7.4/b.md", &["Notes"], 1),
                        doc: 0,
                        anchor: None,
                    },
                    Link {
                        section: 41,
                        id: 7,
                        doc: 0,
                        anchor: None,
                    },
                ],
            ],
            derived_ids: false,
        };
        let mut b = original.clone();
        b.elide_ids();
        assert!(b.derived_ids);
        let stored: Vec<u64> = b.sections.iter().map(|s| s.id).collect();
        assert_eq!(stored, vec![0, 0, 0xdead_beef, 0, 0, 0]);
        assert_eq!(
            b.links[5].iter().map(|l| l.id).collect::<Vec<_>>(),
            vec![0, 7]
        );
        let bytes = crate::format::encode(crate::format::FileKind::Bundle, &b).unwrap();
        let mut read: Bundle =
            crate::format::decode(crate::format::FileKind::Bundle, "b", &bytes).unwrap();
        read.restore_ids();
        assert_eq!(
            read,
            Bundle {
                derived_ids: true,
                ..original.clone()
            }
        );

        // A real id of 0 that derives to something else: every id is kept.
        let mut zero = original.clone();
        zero.sections[2].id = 0;
        let kept = zero.clone();
        zero.elide_ids();
        assert!(!zero.derived_ids);
        zero.restore_ids();
        assert_eq!(zero, kept);

        // Cards derive ids from `id_key` and the breadcrumb alone. A page whose H1 is its
        // title ("C"): the H1's breadcrumb is the title and its id hashes its heading, so the
        // whole breadcrumb is what it and its children hash (flag 1); "Notes" twice
        // (occurrence 1 → key 2); a breadcrumb that is neither form (its id is stored).
        let cdoc = |doc: u32, path: &str| CardDoc {
            doc,
            path: path.into(),
            url: format!("/{path}"),
            title: "C".into(),
            description: None,
            version: Some("7.5".into()),
        };
        let rec = |doc: u32, depth: u8, crumb: &[&str], id: u64| SectionRecord {
            depth,
            ..section(doc, None, crumb.last().unwrap(), crumb, id)
        };
        let (c, d) = ("7.5/c.md", "7.5/d.md");
        let records = [
            (rec(6, 0, &["C"], id(c, &[], 0)), vec![], 0),
            (rec(6, 1, &["C"], id(c, &["C"], 0)), vec!["C"], 0),
            (
                rec(6, 2, &["C", "Usage"], id(c, &["C", "Usage"], 0)),
                vec!["C", "Usage"],
                0,
            ),
            (
                rec(7, 1, &["D", "Notes"], id(d, &["Notes"], 0)),
                vec!["Notes"],
                0,
            ),
            (
                rec(7, 1, &["D", "Notes"], id(d, &["Notes"], 1)),
                vec!["Notes"],
                1,
            ),
            (
                rec(7, 1, &["D", "Odd"], id(d, &["Other"], 0)),
                vec!["Other"],
                0,
            ),
        ];
        let card = Card {
            first_section: 16,
            docs: vec![cdoc(6, c), cdoc(7, d)],
            sections: records
                .iter()
                .map(|(r, chain, occurrence)| {
                    let chain: Vec<String> = chain.iter().map(|h| h.to_string()).collect();
                    CardSection {
                        record: r.clone(),
                        id_key: CardSection::key_for(r, &chain, *occurrence).unwrap_or(0),
                        text: "# C\n".into(),
                    }
                })
                .collect(),
            link_docs: original.link_docs.clone(),
            links: vec![
                vec![],
                vec![],
                vec![],
                vec![],
                vec![Link {
                    section: 40,
                    id: id("7.4/b.md", &["Notes"], 1),
                    doc: 0,
                    anchor: None,
                }],
                vec![],
            ],
            derived_ids: false,
        };
        assert_eq!(
            card.sections.iter().map(|s| s.id_key).collect::<Vec<_>>(),
            vec![0, 1, 1, 0, 2, 0],
            "occurrence << 1 | whole breadcrumb"
        );
        let mut e = card.clone();
        e.elide_ids();
        assert!(e.derived_ids);
        let stored: Vec<u64> = e.sections.iter().map(|s| s.record.id).collect();
        assert_eq!(stored, vec![0, 0, 0, 0, 0, id(d, &["Other"], 0)]);
        assert_eq!(e.links[4][0].id, 0);
        let bytes = crate::format::encode(FileKind::Card, &e).unwrap();
        let mut read: Card = crate::format::decode(FileKind::Card, "c", &bytes).unwrap();
        read.restore_ids();
        assert_eq!(
            read,
            Card {
                derived_ids: true,
                ..card.clone()
            }
        );
    }

    #[test]
    fn card_names_number_cards_under_the_salt() {
        let salt = 0x0123_4567_89ab_cdef;
        for i in [0, 1, 4095, MAX_CARDS - 1] {
            let name = card_name(salt, i);
            assert!(FileKind::is_hashed_name(&name), "{name}");
            assert_eq!(card_ordinal(salt, &name), Some(i));
            // Another build's card, or another kind's file, is not one of ours.
            assert_eq!(card_ordinal(salt ^ 1, &name), None);
        }
        assert_eq!(card_ordinal(salt, "shard.0000000000000000.bin"), None);
        assert_eq!(card_ordinal(salt, "card.xyz.bin"), None);
        assert_ne!(card_name(salt, 1), card_name(salt ^ (1 << 20), 1));
    }
}

mod card_text {
    use crate::layout::sharded::files::{Card, CardSection};
    use crate::section::records::SectionRecord;

    /// A section `lines` (start, own end, end) with `text` as its card holds it.
    fn sec(doc: u32, (start, own, end): (u32, u32, u32), text: &str) -> CardSection {
        CardSection {
            record: SectionRecord {
                id: 0,
                doc,
                anchor: None,
                heading: String::new(),
                depth: 1,
                heading_path: Vec::new(),
                parent: None,
                section_number: 1,
                start_line: start,
                end_line: end,
                own_end_line: own,
                token_estimate: 1,
            },
            id_key: 0,
            text: text.into(),
        }
    }

    fn card(sections: Vec<CardSection>) -> Card {
        Card {
            first_section: 0,
            docs: Vec::new(),
            links: vec![Vec::new(); sections.len()],
            sections,
            link_docs: Vec::new(),
            derived_ids: false,
        }
    }

    #[test]
    fn a_sections_excerpt_text_runs_on_through_its_descendants_in_the_card() {
        let c = card(vec![
            sec(0, (1, 2, 6), "# A\na\n## B\nb\n## C\n"),
            sec(0, (3, 4, 4), "## B\nb\n"),
            sec(0, (5, 6, 6), "## C\nc\n"),
            sec(0, (7, 8, 8), "# D\nd\n"),
            sec(1, (1, 2, 2), "# E\ne\n"),
        ]);
        // A's own lines, then B's and C's: the whole subtree, once each line.
        assert_eq!(c.subtree_text(0).unwrap(), "# A\na\n## B\nb\n## C\nc\n");
        // D is not inside A; a section with no descendant here keeps its own text, borrowed.
        assert_eq!(c.subtree_text(1).unwrap(), "## B\nb\n");
        assert!(matches!(
            c.subtree_text(3),
            Some(std::borrow::Cow::Borrowed("# D\nd\n"))
        ));
        assert!(c.subtree_text(5).is_none());
        // A text the writer cut short leaves a gap: nothing after it is joined on.
        let cut = card(vec![
            sec(0, (1, 3, 6), "# A\na\n"),
            sec(0, (4, 6, 6), "## B\nb\n"),
        ]);
        assert_eq!(cut.subtree_text(0).unwrap(), "# A\na\n");
        let cut_child = card(vec![
            sec(0, (1, 2, 9), "# A\na\n"),
            sec(0, (3, 5, 5), "## B\n"),
            sec(0, (6, 9, 9), "## C\nc\n"),
        ]);
        assert_eq!(cut_child.subtree_text(0).unwrap(), "# A\na\n## B\n");
    }
}
