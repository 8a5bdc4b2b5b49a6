//! A page's name: the words of its file name, indexed with the page's top among its hints.
//!
//! Authors name a page's file after its topic, often more plainly than its title: the AWS
//! Lambda guide's "Instrumenting Ruby code in AWS Lambda" is `ruby-tracing.md`, "Managing
//! concurrency for a Lambda function" `configuration-concurrency.md`. A visitor who types the
//! topic's name finds the page about it before a section elsewhere that mentions the topic.
use crate::section::Section;

/// The words of a page's file name (`configuration-concurrency.md` → "configuration
/// concurrency"; an `index` or `README` page: its folder's name), or `None` for the site's
/// root page.
pub fn page_name(doc_path: &str) -> Option<String> {
    let mut parts = doc_path
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != ".")
        .rev();
    let file = parts.next()?;
    let stem = file
        .rsplit_once('.')
        .filter(|(_, ext)| {
            ["md", "markdown", "mdx", "html", "htm"].contains(&ext.to_ascii_lowercase().as_str())
        })
        .map_or(file, |(stem, _)| stem);
    let stem = if ["index", "readme", "_index"].contains(&stem.to_ascii_lowercase().as_str()) {
        parts.next()?
    } else {
        stem
    };
    let words = stem.replace(['-', '_', '.', '+'], " ");
    let words = words.trim();
    (!words.is_empty()).then(|| words.to_string())
}

/// How many of a document's first sections hold the page's top: its node, and the heading
/// after it when the page opens with its title as a heading (the node then holds only that
/// title, and the heading the page's opening text).
pub fn page_tops(sections: &[Section]) -> usize {
    match sections {
        [node, first, ..] if node.text.trim().is_empty() && first.heading == node.heading => 2,
        [] => 0,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_named_by_its_file_or_its_folder() {
        assert_eq!(
            page_name("configuration-concurrency.md").as_deref(),
            Some("configuration concurrency")
        );
        assert_eq!(
            page_name("guide/essentials/template-refs.md").as_deref(),
            Some("template refs")
        );
        assert_eq!(
            page_name("API_AddPermission.html").as_deref(),
            Some("API AddPermission")
        );
        assert_eq!(
            page_name("guide/components/index.md").as_deref(),
            Some("components")
        );
        assert_eq!(page_name("layers/README.md").as_deref(), Some("layers"));
        assert_eq!(page_name("./v2.1/notes"), Some("notes".to_string()));
        // The site's root page names nothing.
        assert_eq!(page_name("index.md"), None);
        assert_eq!(page_name("README.md"), None);
    }
}
