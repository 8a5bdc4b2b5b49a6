//! The page template's own words (`build-index --site`), in the languages the widget speaks
//! (web/src/widget/strings.ts): a French site's pages say "Mode sombre", not "Dark mode".
//! A page's language tag picks the table; an unknown one gets English.

/// The template's words for one language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TemplateStrings {
    /// The skip link's text.
    pub skip: &'static str,
    /// The sidebar navigation's label.
    pub nav: &'static str,
    /// The breadcrumb trail's label.
    pub crumbs: &'static str,
    /// The theme button's text.
    pub dark_mode: &'static str,
    /// The breadcrumb trail's first link.
    pub home: &'static str,
}

const fn t(
    skip: &'static str,
    nav: &'static str,
    crumbs: &'static str,
    dark_mode: &'static str,
    home: &'static str,
) -> TemplateStrings {
    TemplateStrings {
        skip,
        nav,
        crumbs,
        dark_mode,
        home,
    }
}

const EN: TemplateStrings = t(
    "Skip to content",
    "Documentation",
    "Breadcrumbs",
    "Dark mode",
    "Home",
);

/// By language tag (primary subtag, or `zh-Hant`-style for Chinese), as strings.ts lists them.
const TABLE: &[(&str, TemplateStrings)] = &[
    ("en", EN),
    (
        "ja",
        t(
            "本文へ移動",
            "ドキュメント",
            "パンくずリスト",
            "ダークモード",
            "ホーム",
        ),
    ),
    (
        "zh-CN",
        t("跳到正文", "文档", "面包屑导航", "深色模式", "首页"),
    ),
    (
        "zh-TW",
        t("跳至主要內容", "文件", "導覽路徑", "深色模式", "首頁"),
    ),
    (
        "ko",
        t("본문으로 건너뛰기", "문서", "이동 경로", "다크 모드", "홈"),
    ),
    (
        "de",
        t(
            "Zum Inhalt springen",
            "Dokumentation",
            "Brotkrümelnavigation",
            "Dunkler Modus",
            "Startseite",
        ),
    ),
    (
        "fr",
        t(
            "Aller au contenu",
            "Documentation",
            "Fil d'Ariane",
            "Mode sombre",
            "Accueil",
        ),
    ),
    (
        "es",
        t(
            "Saltar al contenido",
            "Documentación",
            "Migas de pan",
            "Modo oscuro",
            "Inicio",
        ),
    ),
    (
        "pt-BR",
        t(
            "Pular para o conteúdo",
            "Documentação",
            "Trilha de navegação",
            "Modo escuro",
            "Início",
        ),
    ),
    (
        "ru",
        t(
            "Перейти к содержимому",
            "Документация",
            "Навигационная цепочка",
            "Тёмная тема",
            "Главная",
        ),
    ),
];

/// The words for a page tagged `lang` (`fr`, `fr-CA`, `pt`, `zh-Hant-TW` …): Chinese by
/// script or region (Taiwan, Hong Kong and Macau read Traditional), other languages by
/// primary subtag; English for any other tag.
pub fn for_lang(lang: &str) -> TemplateStrings {
    let tag = lang.trim().to_ascii_lowercase().replace('_', "-");
    let mut parts = tag.split('-');
    let primary = parts.next().unwrap_or_default();
    let key = match primary {
        "zh" => {
            let traditional = parts.any(|p| matches!(p, "hant" | "tw" | "hk" | "mo"));
            if traditional {
                "zh-TW"
            } else {
                "zh-CN"
            }
        }
        "pt" => "pt-BR",
        other => other,
    };
    TABLE
        .iter()
        .find(|(k, _)| *k == key)
        .map_or(EN, |(_, s)| *s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_pick_their_table_and_unknown_ones_read_english() {
        assert_eq!(for_lang("fr").dark_mode, "Mode sombre");
        assert_eq!(for_lang("fr-CA").home, "Accueil");
        assert_eq!(for_lang("ja-JP").skip, "本文へ移動");
        assert_eq!(for_lang("zh").home, "首页");
        assert_eq!(for_lang("zh-Hant").home, "首頁");
        assert_eq!(for_lang("zh_TW").home, "首頁");
        assert_eq!(for_lang("pt").dark_mode, "Modo escuro");
        assert_eq!(for_lang("DE").nav, "Dokumentation");
        assert_eq!(for_lang("sw"), EN);
        assert_eq!(for_lang(""), EN);
    }

    #[test]
    fn every_language_of_the_widget_has_a_table() {
        for tag in [
            "en", "ja", "zh-CN", "zh-TW", "ko", "de", "fr", "es", "pt-BR", "ru",
        ] {
            assert!(TABLE.iter().any(|(k, _)| *k == tag), "{tag}");
            assert!(tag == "en" || for_lang(tag) != EN, "{tag}");
        }
    }
}
