//! The language of a site's pages, when they do not say theirs: what `--site` writes into
//! their `<html lang>`, and what the index records for them, so every page has a language
//! (a filter, a facet value, and the reader's-language-first order can rely on it).

use midashi_core::analyzer::Language;
use midashi_core::section::Document;
use std::collections::BTreeMap;

/// The language of a site's pages that do not say theirs: `given` (`--lang`), else the one
/// most documents declare (frontmatter `lang`), else the one their text is written in, by
/// script (kana: `ja`, Hangul: `ko`, other CJK ideographs: `zh`) or its stopwords (`fr`,
/// `de`, `ru` …: `midashi_core::analyzer::Language::guess`), else `en`. Was always
/// `en`: a Japanese site got `<html lang="en">` and an English search box unless every file
/// said `lang: ja`.
/// Gives every page that names no language the site's ([`site_lang`]), and returns it. Does
/// nothing (and reads no text) when every page names one already.
pub fn give_site_lang(docs: &mut [Document], given: Option<&str>) -> Option<String> {
    let untagged = |d: &Document| d.sections.iter().any(|s| s.hints.lang.is_none());
    if !docs.iter().any(untagged) {
        return None;
    }
    let site = site_lang(docs, given);
    for s in docs.iter_mut().flat_map(|d| &mut d.sections) {
        s.hints.lang.get_or_insert_with(|| site.clone());
    }
    Some(site)
}

pub fn site_lang(docs: &[Document], given: Option<&str>) -> String {
    if let Some(l) = given.map(str::trim).filter(|l| !l.is_empty()) {
        return l.to_string();
    }
    let mut declared: BTreeMap<&str, usize> = BTreeMap::new();
    for d in docs {
        if let Some(l) = d.sections.first().and_then(|s| s.hints.lang.as_deref()) {
            *declared.entry(l).or_default() += 1;
        }
    }
    if let Some((l, n)) = declared.iter().max_by_key(|(_, n)| **n) {
        if *n * 2 > docs.len() {
            return (*l).to_string();
        }
    }
    let (mut kana, mut hangul, mut han, mut letters) = (0usize, 0usize, 0usize, 0usize);
    for d in docs {
        for c in d.sections.iter().flat_map(|s| s.text.chars()) {
            match c {
                '\u{3040}'..='\u{30ff}' => kana += 1,
                '\u{ac00}'..='\u{d7af}' | '\u{1100}'..='\u{11ff}' => hangul += 1,
                '\u{4e00}'..='\u{9fff}' | '\u{3400}'..='\u{4dbf}' => han += 1,
                c if c.is_alphabetic() => letters += 1,
                _ => {}
            }
        }
    }
    // One CJK character carries about a word: compared with words of other scripts.
    let words = letters / 5;
    let cjk = kana + hangul + han;
    if cjk > words {
        return if kana * 10 > cjk {
            "ja"
        } else if hangul * 2 > cjk {
            "ko"
        } else {
            "zh"
        }
        .into();
    }
    // Latin, Cyrillic, Greek … text: by its stopwords (the first ~200 KB is plenty).
    let mut sample = String::new();
    for s in docs.iter().flat_map(|d| &d.sections) {
        if sample.len() > 200_000 {
            break;
        }
        sample.push_str(&s.text);
        sample.push('\n');
    }
    Language::guess(&sample).map_or("en", Language::code).into()
}

#[cfg(test)]
mod tests {
    use super::site_lang;
    use midashi_markdown::{parse_document, Options};

    fn docs(sources: &[(&str, &str)]) -> Vec<midashi_core::section::Document> {
        sources
            .iter()
            .map(|(p, s)| parse_document(p, s, &Options::default()).0)
            .collect()
    }

    #[test]
    fn the_language_comes_from_the_flag_the_pages_or_their_script() {
        let ja = docs(&[
            (
                "a.md",
                "# はじめに\n\nこのライブラリはドキュメントを検索します。Vue の API も使えます。\n",
            ),
            ("b.md", "# 設定\n\n設定ファイルを書きます。\n"),
        ]);
        assert_eq!(site_lang(&ja, None), "ja");
        assert_eq!(site_lang(&ja, Some("ja-JP")), "ja-JP");
        let en = docs(&[(
            "a.md",
            "# Start\n\nThis library searches documentation. 日本語 is one word here.\n",
        )]);
        assert_eq!(site_lang(&en, None), "en");
        let ko = docs(&[("a.md", "# 시작\n\n이 라이브러리는 문서를 검색합니다.\n")]);
        assert_eq!(site_lang(&ko, None), "ko");
        let zh = docs(&[("a.md", "# 开始\n\n这个库用于搜索文档。\n")]);
        assert_eq!(site_lang(&zh, None), "zh");
        // What most pages declare wins over their script.
        let declared = docs(&[
            (
                "a.md",
                "---\nlang: fr\n---\n# Début\n\nCette bibliothèque cherche.\n",
            ),
            ("b.md", "---\nlang: fr\n---\n# Suite\n\nEncore.\n"),
            ("c.md", "# Other\n\nText.\n"),
        ]);
        assert_eq!(site_lang(&declared, None), "fr");
    }

    /// Untagged pages in a language with a stemmer are told by their stopwords, so a French
    /// or German Markdown site is read by its own rules with no flag.
    #[test]
    fn latin_script_languages_are_told_by_their_stopwords() {
        let fr = docs(&[
            (
                "a.md",
                "# Routeur

Le routeur accepte des réglages avancés. Pour les configurer, ouvrez \
                 le fichier de configuration et ajoutez une section pour chaque route que vous \
                 voulez servir.
",
            ),
            (
                "b.md",
                "# Options

Les options sont décrites dans la page suivante, avec des exemples \
                 pour les cas les plus courants et ce qu'il faut éviter.
",
            ),
        ]);
        assert_eq!(site_lang(&fr, None), "fr");
        let en = docs(&[(
            "a.md",
            "# Router

The router takes advanced settings. To configure them, open the file \
             and add a section for each route that you want to serve, as the next page shows \
             with examples for the most common cases and what to avoid.
",
        )]);
        assert_eq!(site_lang(&en, None), "en");
    }
}
