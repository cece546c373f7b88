package io.mpshare.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The docs stand on their own in a user's clone: no page points outside the checkout (the project's working notes
 * beside it are not in a clone), and every relative link leads to a file or folder that exists.
 */
class DocsSelfContainedTest {
    private static final Pattern OUTSIDE = Pattern.compile("\\.\\./shared|/work/shared|FACTS\\.md|ARCHITECTURE\\.md");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    /** @param page the page's path relative to {@code root}, as messages show it */
    static List<String> problems(Path root, Path page, String markdown) {
        List<String> problems = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher out = OUTSIDE.matcher(lines[i]);
            if (out.find()) problems.add(page + ":" + (i + 1) + ": points outside the checkout (" + out.group() + ")");
            Matcher link = LINK.matcher(lines[i]);
            while (link.find()) {
                String target = link.group(1).replaceFirst("#.*$", "");
                if (target.isEmpty() || target.matches("^[a-z]+:.*")) continue; // anchor only, or http(s):, mailto:
                if (!Files.exists(root.resolve(page).getParent().resolve(target)))
                    problems.add(page + ":" + (i + 1) + ": link to " + target + ", which does not exist");
            }
        }
        return problems;
    }

    @Test void docs_noPointerOutsideTheCloneAndNoBrokenLink() throws IOException {
        List<String> all = new ArrayList<>();
        List<Path> pages = new ArrayList<>(DocsCliDriftTest.pages());
        try (var decisions = Files.list(DocsCliDriftTest.root().resolve("docs/decisions"))) {
            decisions.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        Path root = DocsCliDriftTest.root();
        for (Path page : pages) all.addAll(problems(root, root.relativize(page), Files.readString(page)));
        assertThat(all).isEmpty();
    }

    @Test void problems_sharedPointerAndBrokenLink_reported() {
        assertThat(problems(DocsCliDriftTest.root(), Path.of("docs/x.md"), "See ../shared/ARCHITECTURE.md.\nAnd [a](architecture.md), [b](nope.md#x), [c](https://example.org), [d](#top)."))
                .containsExactly("docs/x.md:1: points outside the checkout (../shared)", "docs/x.md:2: link to nope.md, which does not exist");
    }
}
