package io.mpshare.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The docs stand on their own in a user's clone: no page points outside the checkout (the project's working notes
 * beside it are not in a clone), every relative link leads to a file or folder that exists, and a link's
 * {@code #anchor} names a heading of the page it leads to (as GitHub writes heading anchors).
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
                String anchor = link.group(1).contains("#") ? link.group(1).substring(link.group(1).indexOf('#') + 1) : "";
                if (target.matches("^[a-z]+:.*")) continue; // http(s):, mailto:
                Path file = root.resolve(page).getParent().resolve(target);
                if (!target.isEmpty() && !Files.exists(file)) {
                    problems.add(page + ":" + (i + 1) + ": link to " + target + ", which does not exist");
                    continue;
                }
                if (anchor.isEmpty() || !target.isEmpty() && !target.endsWith(".md")) continue;
                if (!anchors(target.isEmpty() ? markdown : read(file)).contains(anchor))
                    problems.add(page + ":" + (i + 1) + ": link to " + target + "#" + anchor + ", which names no heading there");
            }
        }
        return problems;
    }

    /** The anchors GitHub gives the headings of {@code markdown}: lower case, punctuation dropped, spaces as {@code -}, repeats numbered. */
    static Set<String> anchors(String markdown) {
        Set<String> out = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.startsWith("```")) fenced = !fenced;
            if (fenced || !line.matches("^#{1,6} .*")) continue;
            String slug = line.replaceFirst("^#+ ", "").strip().toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum);
            out.add(n == 1 ? slug : slug + "-" + (n - 1));
        }
        return out;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
        assertThat(problems(DocsCliDriftTest.root(), Path.of("docs/x.md"), "# Top\nSee ../shared/ARCHITECTURE.md.\nAnd [a](architecture.md), [b](nope.md#x), [c](https://example.org), [d](#top)."))
                .containsExactly("docs/x.md:2: points outside the checkout (../shared)", "docs/x.md:3: link to nope.md, which does not exist");
    }

    @Test void problems_anchorWithoutItsHeading_reported() {
        assertThat(problems(DocsCliDriftTest.root(), Path.of("docs/x.md"),
                "# Top\n[a](cli.md#which-api-server), [b](cli.md#no-such-heading), [c](#top), [d](#bottom)."))
                .containsExactly("docs/x.md:2: link to cli.md#no-such-heading, which names no heading there",
                        "docs/x.md:2: link to #bottom, which names no heading there");
    }

    @Test void anchors_asGitHubWritesThem() {
        assertThat(anchors("""
                # Without a GPU: `--fake-gpus`
                ## Failure policy: Fail, narrowly scoped
                ```sh
                # a shell comment, not a heading
                ```
                ## Tests
                ### Tests
                """)).containsExactlyInAnyOrder("without-a-gpu---fake-gpus", "failure-policy-fail-narrowly-scoped", "tests", "tests-1");
    }
}
