//! Tests of what a bundle and a card hold: section ids left out and restored, card names,
//! and the text a card keeps for excerpts.

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
            salt: 0,
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
            salt: 0,
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
