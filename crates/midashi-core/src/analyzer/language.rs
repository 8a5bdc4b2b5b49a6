//! Which language's rules turn a word into a term: the page's language picks the Snowball
//! stemmer and the stop list; every other language (Japanese, Chinese, Korean, Polish …) keeps
//! today's English rules for the Latin words in it (docs in any language are full of English
//! identifiers and terms) and its own script unstemmed (CJK as bigrams, see the module docs).
//!
//! The stemmers themselves are in `snowball.rs` (feature `languages`); a build without it
//! (the browser's keyword modules) knows English only and asks for the full engine for the
//! rest (see [`Language::supported`]).

use super::snowball;

/// A language the analyzer stems differently from English, or English.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Language {
    /// English: also the rules for every language without its own stemmer.
    #[default]
    English,
    /// Arabic.
    Arabic,
    /// Danish.
    Danish,
    /// Dutch.
    Dutch,
    /// Finnish.
    Finnish,
    /// French.
    French,
    /// German.
    German,
    /// Greek.
    Greek,
    /// Hungarian.
    Hungarian,
    /// Italian.
    Italian,
    /// Norwegian (Bokmål and Nynorsk).
    Norwegian,
    /// Portuguese.
    Portuguese,
    /// Romanian.
    Romanian,
    /// Russian.
    Russian,
    /// Spanish.
    Spanish,
    /// Swedish.
    Swedish,
    /// Tamil.
    Tamil,
    /// Turkish.
    Turkish,
}

/// The script a language's stemmer reads: words in any other script are not its to stem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Script {
    /// ASCII letters only (English: `café` stays as it is, as it always has).
    Ascii,
    /// Latin letters, accented ones included.
    Latin,
    Cyrillic,
    Greek,
    Arabic,
    Tamil,
}

/// Every language with its code (ISO 639-1, as the index stores it).
const CODES: &[(Language, &str)] = &[
    (Language::English, "en"),
    (Language::Arabic, "ar"),
    (Language::Danish, "da"),
    (Language::Dutch, "nl"),
    (Language::Finnish, "fi"),
    (Language::French, "fr"),
    (Language::German, "de"),
    (Language::Greek, "el"),
    (Language::Hungarian, "hu"),
    (Language::Italian, "it"),
    (Language::Norwegian, "no"),
    (Language::Portuguese, "pt"),
    (Language::Romanian, "ro"),
    (Language::Russian, "ru"),
    (Language::Spanish, "es"),
    (Language::Swedish, "sv"),
    (Language::Tamil, "ta"),
    (Language::Turkish, "tr"),
];

impl Language {
    /// The rules for a page's language tag (`fr`, `pt-BR`, `de_CH`, `nb`); English for no
    /// tag and for any language without a stemmer of its own.
    pub fn of_tag(tag: Option<&str>) -> Language {
        let Some(tag) = tag else {
            return Language::English;
        };
        let primary = tag.split(['-', '_']).next().unwrap_or("");
        let primary = primary.trim().to_ascii_lowercase();
        let primary = match primary.as_str() {
            "nb" | "nn" => "no",
            p => p,
        };
        Language::from_code(primary).unwrap_or_default()
    }

    /// The language of a code as [`Language::code`] writes it.
    pub fn from_code(code: &str) -> Option<Language> {
        CODES.iter().find(|(_, c)| *c == code).map(|(l, _)| *l)
    }

    /// The code the index stores (`en`, `fr` …).
    pub fn code(self) -> &'static str {
        CODES
            .iter()
            .find(|(l, _)| *l == self)
            .map_or("en", |(_, c)| c)
    }

    /// Whether this build can analyze text in this language: always for English; for the
    /// others only with feature `languages` (the full engine and the indexer).
    pub fn supported(self) -> bool {
        self == Language::English || snowball::ALL_LANGUAGES
    }

    /// The script its stemmer reads.
    pub(super) fn script(self) -> Script {
        match self {
            Language::English => Script::Ascii,
            Language::Russian => Script::Cyrillic,
            Language::Greek => Script::Greek,
            Language::Arabic => Script::Arabic,
            Language::Tamil => Script::Tamil,
            _ => Script::Latin,
        }
    }

    /// Whether `lower` (a normalised, lower-cased word) is this language's to stem: letters
    /// of its script (and apostrophes), at least one letter.
    pub(super) fn stems(self, lower: &str) -> bool {
        // A build that stems English only has no other script's ranges to carry.
        let script = if snowball::ALL_LANGUAGES {
            self.script()
        } else {
            Script::Ascii
        };
        let mut letter = false;
        for c in lower.chars() {
            if c == '\'' {
                continue;
            }
            if !in_script(script, c) {
                return false;
            }
            letter = true;
        }
        letter
    }

    /// The language `text` is written in, by its stopwords, when it is clearly not English
    /// (its most frequent stopwords are another language's, twenty at least): what a page
    /// that names no language is read by. `None` for English and for text too short to
    /// tell, and in a build without other languages. Scripts are left to the caller (CJK
    /// text has no stopwords here).
    pub fn guess(text: &str) -> Option<Language> {
        if !snowball::ALL_LANGUAGES {
            return None;
        }
        // Each stopword to the languages whose list has it (index into CODES).
        let mut lists: std::collections::HashMap<&str, Vec<usize>> = Default::default();
        for (i, (lang, _)) in CODES.iter().enumerate() {
            let words: Vec<&str> = match lang {
                Language::English => super::stopwords::STOPWORDS.to_vec(),
                other => snowball::stoplist(*other).collect(),
            };
            for w in words {
                lists.entry(w).or_default().push(i);
            }
        }
        let mut hits = vec![0usize; CODES.len()];
        for word in text
            .split(|c: char| !(c.is_alphabetic() || c == '\'' || c == '’'))
            .filter(|w| !w.is_empty())
        {
            let lower = word.to_lowercase().replace('’', "'");
            for &i in lists.get(lower.as_str()).into_iter().flatten() {
                hits[i] += 1;
            }
        }
        let english = hits[0];
        let (best, &n) = hits
            .iter()
            .enumerate()
            .max_by_key(|&(i, n)| (*n, usize::MAX - i))?;
        // English's list is as long as the others: its own text beats them all by far.
        (best != 0 && n >= 20 && n * 5 > english * 6).then(|| CODES[best].0)
    }

    /// The word as its stemmer should see it: French and Italian elisions (`l'`, `qu'`,
    /// `dell'`) are articles and pronouns glued to the word, not part of it.
    pub(super) fn without_elision(self, lower: &str) -> &str {
        if !snowball::ALL_LANGUAGES {
            return lower;
        }
        let elided: &[&str] = match self {
            Language::French => &[
                "l'", "d'", "j'", "m'", "n'", "s'", "t'", "c'", "qu'", "jusqu'", "lorsqu'",
                "puisqu'",
            ],
            Language::Italian => &[
                "l'", "d'", "un'", "dell'", "dall'", "nell'", "sull'", "all'", "quest'", "quell'",
                "c'",
            ],
            _ => return lower,
        };
        match elided.iter().find(|e| lower.starts_with(**e)) {
            Some(e) if lower.len() > e.len() => &lower[e.len()..],
            _ => lower,
        }
    }
}

fn in_script(script: Script, c: char) -> bool {
    match script {
        Script::Ascii => c.is_ascii_lowercase(),
        // Ranges, not `char::is_alphabetic`: its table would weigh on every module. The
        // Latin-1 letters (without × and ÷), Latin Extended-A and -B, Latin Extended
        // Additional; words are lower-cased already.
        Script::Latin => matches!(c,
            'a'..='z' | '\u{00DF}'..='\u{00F6}' | '\u{00F8}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}'),
        Script::Cyrillic => matches!(c, '\u{0400}'..='\u{052F}'),
        Script::Greek => matches!(c, '\u{0370}'..='\u{03FF}' | '\u{1F00}'..='\u{1FFF}'),
        Script::Arabic => matches!(c, '\u{0620}'..='\u{065F}' | '\u{066E}'..='\u{06D3}'),
        Script::Tamil => matches!(c, '\u{0B80}'..='\u{0BFF}'),
    }
}

#[cfg(all(test, feature = "languages"))]
mod tests {
    use super::super::Analyzer;
    use super::Language;

    fn terms(a: &Analyzer, text: &str) -> Vec<String> {
        a.analyze(text).into_iter().map(|t| t.term).collect()
    }

    fn one(a: &Analyzer, word: &str) -> String {
        let t = terms(a, word);
        assert_eq!(t.len(), 1, "{word}: {t:?}");
        t[0].clone()
    }

    #[test]
    fn tags_name_the_rules() {
        for (tag, lang) in [
            (Some("fr"), Language::French),
            (Some("FR-ca"), Language::French),
            (Some("pt-BR"), Language::Portuguese),
            (Some("pt_br"), Language::Portuguese),
            (Some("nb"), Language::Norwegian),
            (Some("de-CH"), Language::German),
            (Some("ru"), Language::Russian),
            (Some("ja"), Language::English),
            (Some("zh-Hans"), Language::English),
            (Some("pl"), Language::English),
            (Some(""), Language::English),
            (None, Language::English),
        ] {
            assert_eq!(Language::of_tag(tag), lang, "{tag:?}");
            assert_eq!(Language::from_code(lang.code()), Some(lang));
        }
        // Pages without a stemmer of their own keep today's (English) rules exactly.
        assert_eq!(Analyzer::for_tag(Some("ja")), Analyzer::new());
    }

    #[test]
    fn each_language_folds_its_own_inflections() {
        let cases: [(&str, &[&str]); 6] = [
            ("fr", &["configuration", "configurations", "Configurations"]),
            ("fr", &["avancée", "avancées", "avancé"]),
            ("de", &["Komponente", "Komponenten"]),
            ("es", &["componente", "componentes"]),
            ("ru", &["компонент", "компоненты", "компонентов"]),
            ("it", &["configurazione", "configurazioni"]),
        ];
        for (tag, words) in cases {
            let a = Analyzer::for_tag(Some(tag));
            let stems: Vec<String> = words.iter().map(|w| one(&a, w)).collect();
            assert!(stems.iter().all(|s| *s == stems[0]), "{tag}: {stems:?}");
            // The English rules leave the non-ASCII ones alone, as they always have.
            if words.iter().any(|w| !w.is_ascii()) {
                let en = Analyzer::new();
                let raw: Vec<String> = words.iter().map(|w| one(&en, w)).collect();
                assert!(raw.iter().any(|s| *s != stems[0]), "{tag}: {raw:?}");
            }
        }
    }

    #[test]
    fn english_words_in_other_scripts_pages_keep_english_rules() {
        let ru = Analyzer::for_tag(Some("ru"));
        assert_eq!(one(&ru, "components"), one(&Analyzer::new(), "components"));
        // Identifiers and versions are never stemmed.
        let fr = Analyzer::for_tag(Some("fr"));
        assert_eq!(one(&fr, "vue3"), "vue3");
        assert_eq!(terms(&fr, "v-model"), ["v-model", "v", "model"]);
    }

    #[test]
    fn french_elisions_are_not_part_of_the_word() {
        let fr = Analyzer::for_tag(Some("fr"));
        assert_eq!(one(&fr, "l'application"), one(&fr, "application"));
        assert_eq!(one(&fr, "d’installation"), one(&fr, "installations"));
        let it = Analyzer::for_tag(Some("it"));
        assert_eq!(one(&it, "dell'applicazione"), one(&it, "applicazioni"));
    }

    #[test]
    fn a_pages_language_is_told_by_its_stopwords() {
        let fr = "Le routeur accepte des réglages avancés. Pour les configurer, ouvrez le \
                  fichier de configuration et ajoutez une section pour chaque route que vous \
                  voulez servir. Les options sont décrites dans la page suivante, avec des \
                  exemples pour les cas les plus courants et ce qu'il faut éviter.";
        let de = "Der Router akzeptiert erweiterte Einstellungen. Um sie zu konfigurieren, \
                  öffnen Sie die Datei und fügen Sie für jede Route, die Sie bereitstellen \
                  wollen, einen Abschnitt hinzu. Die Optionen werden auf der nächsten Seite \
                  beschrieben, mit Beispielen für die häufigsten Fälle und was man vermeiden \
                  sollte, wenn man es nicht braucht.";
        let en = "The router takes advanced settings. To configure them, open the file and add \
                  a section for each route that you want to serve. The options are described on \
                  the next page, with examples for the most common cases and what to avoid if \
                  you do not need it, and why it is there at all.";
        assert_eq!(Language::guess(fr), Some(Language::French));
        assert_eq!(Language::guess(de), Some(Language::German));
        assert_eq!(Language::guess(en), None);
        assert_eq!(Language::guess("Le routeur."), None);
        assert_eq!(Language::guess("プロパティの説明。"), None);
    }

    /// Only English's stopwords leave a query: another language's carry meaning often
    /// enough (`pas`, `sans`, `nicht`, `ohne`) that dropping them was measured to cost
    /// ranking (bench/multilingual).
    #[test]
    fn queries_keep_other_languages_stopwords() {
        let a = Analyzer::for_index(&[Language::French], None).unwrap();
        let q: Vec<String> = a
            .analyze_query("pourquoi le routeur ne démarre pas")
            .into_iter()
            .map(|t| t.raw)
            .collect();
        assert_eq!(q, ["pourquoi", "le", "routeur", "ne", "démarre", "pas"]);
        // English stopwords go in every language.
        assert_eq!(a.analyze_query("the routeur").len(), 1);
    }

    #[test]
    fn a_query_is_read_in_the_readers_language_and_tries_the_others() {
        let langs = [Language::French, Language::English, Language::German];
        let site = Analyzer::for_index(&langs, None).unwrap();
        assert_eq!(site.language(), Language::French);
        let reader = Analyzer::for_index(&langs, Some("en-US")).unwrap();
        assert_eq!(reader.language(), Language::English);
        // A reader's language the index has no pages in: the site's.
        let other = Analyzer::for_index(&langs, Some("es")).unwrap();
        assert_eq!(other.language(), Language::French);
        // Japanese pages follow the English rules (for the Latin words in them).
        let ja = Analyzer::for_index(&langs, Some("ja")).unwrap();
        assert_eq!(ja.language(), Language::English);

        let q = &reader.analyze_query("Komponenten")[0];
        assert_eq!(q.term, "komponenten");
        let de = one(&Analyzer::for_tag(Some("de")), "Komponenten");
        assert!(q.also.contains(&de), "{q:?}");
        // Nothing repeated, nothing equal to the term itself.
        assert!(!q.also.contains(&q.term));
        // English alone: nothing else to try.
        let en = Analyzer::for_index(&[], None).unwrap();
        assert!(en.analyze_query("configurations")[0].also.is_empty());
    }
}
