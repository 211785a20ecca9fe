package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;

/**
 * The README's "Embed it" snippets are what examples/consumer (a service built outside this build,
 * by CI, against the installed artifacts) really uses, and the BOM they import lists every library
 * module of this build and no application.
 */
@Timeout(60)
class ConsumerProjectTest {
  private static final Path ROOT = Path.of("..");
  private static final String BOM = "io.nrtcluster:nrtcluster-bom";

  @Test
  void theReadmeMavenSnippetIsWhatTheConsumerUses() throws Exception {
    Element snippet = parse("<project>" + readmeBlock("xml") + "</project>");
    Element consumer = parse(Files.readString(ROOT.resolve("examples/consumer/pom.xml"), StandardCharsets.UTF_8));

    assertThat(bomImport(snippet)).as("README's BOM import").isEqualTo(bomImport(consumer));
    assertThat(dependencies(snippet, false)).as("README's dependencies == the consumer's (test scope aside)")
        .isEqualTo(dependencies(consumer, false)).isNotEmpty();
    for (Element d : children(child(snippet, "dependencies"), "dependency")) {
      assertThat(child(d, "version")).as("README: a version on " + coordinates(d) + " (the BOM sets it)").isNull();
    }
    for (String nrt : dependencies(consumer, true)) {
      assertThat(nrt).as("the consumer versions its nrtcluster dependencies only through the BOM").doesNotContain("#");
    }
  }

  @Test
  void theReadmeGradleSnippetNamesTheSameCoordinates() throws Exception {
    String gradle = readmeBlock("kotlin");
    Element snippet = parse("<project>" + readmeBlock("xml") + "</project>");

    Matcher platform = Pattern.compile("implementation\\(platform\\(\"([^\"]+)\"\\)\\)").matcher(gradle);
    assertThat(platform.find()).as("platform(...) in the Gradle snippet").isTrue();
    List<String> bom = bomImport(snippet);
    assertThat(platform.group(1)).isEqualTo(bom.get(0) + ":" + bom.get(1) + ":" + bom.get(2));
    List<String> deps = new ArrayList<>();
    Matcher dep = Pattern.compile("implementation\\(\"([^\"]+)\"\\)").matcher(gradle);
    while (dep.find()) {
      deps.add(dep.group(1));
    }
    assertThat(deps).isEqualTo(dependencies(snippet, false));
  }

  @Test
  void theSnippetsImportThisBuildsBomVersion() throws Exception {
    String version = text(parse(Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8)), "version");
    List<String> bom = bomImport(parse("<project>" + readmeBlock("xml") + "</project>"));
    assertThat(bom.get(0) + ":" + bom.get(1)).isEqualTo(BOM);
    assertThat(bom.get(2)).as("the README's BOM version is this build's").isEqualTo(version);
    assertThat(readmeBlock("kotlin")).contains(BOM + ":" + version);
  }

  @Test
  void theBomListsEveryLibraryModuleAndNoApplication() throws Exception {
    Element root = parse(Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8));
    List<String> libraries = new ArrayList<>();
    for (Element module : children(child(root, "modules"), "module")) {
      String dir = module.getTextContent().trim();
      Element pom = parse(Files.readString(ROOT.resolve(dir).resolve("pom.xml"), StandardCharsets.UTF_8));
      Element properties = child(pom, "properties");
      boolean application = properties != null && "true".equals(text(properties, "nrt.application"));
      if (!dir.equals("bom") && !application) {
        libraries.add("io.nrtcluster:" + text(pom, "artifactId"));
      }
    }
    Element bom = parse(Files.readString(ROOT.resolve("bom/pom.xml"), StandardCharsets.UTF_8));
    List<String> listed = new ArrayList<>();
    for (Element d : children(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
      if (text(d, "groupId").equals("io.nrtcluster")) {
        listed.add(coordinates(d));
        assertThat(text(d, "version")).as(coordinates(d)).isEqualTo("${project.version}");
      }
    }
    assertThat(libraries).as("library modules (nrt.application not true)").contains("io.nrtcluster:nrtcluster-node");
    assertThat(listed).as("nrtcluster artifacts in bom/pom.xml").containsExactlyInAnyOrderElementsOf(libraries);
  }

  /** The first fenced block of {@code language} under "## Embed it". */
  private static String readmeBlock(String language) throws Exception {
    String text = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    int section = text.indexOf("## Embed it");
    assertThat(section).as("'## Embed it' in README.md").isNotNegative();
    int fence = text.indexOf("```" + language + "\n", section);
    int next = text.indexOf("\n## ", section + 1);
    assertThat(fence).as("```" + language + " block under '## Embed it'").isNotNegative().isLessThan(next);
    int start = text.indexOf('\n', fence) + 1;
    return text.substring(start, text.indexOf("```", start));
  }

  /** groupId, artifactId, version, type, scope of the imported nrtcluster BOM. */
  private static List<String> bomImport(Element project) {
    for (Element d : children(child(child(project, "dependencyManagement"), "dependencies"), "dependency")) {
      if (coordinates(d).equals(BOM)) {
        return List.of(text(d, "groupId"), text(d, "artifactId"), text(d, "version"), text(d, "type"), text(d, "scope"));
      }
    }
    throw new AssertionError("no import of " + BOM);
  }

  /** groupId:artifactId of the non-test dependencies, in order; "#version" appended when one is given and withVersions. */
  private static List<String> dependencies(Element project, boolean withVersions) {
    List<String> out = new ArrayList<>();
    for (Element d : children(child(project, "dependencies"), "dependency")) {
      if (!"test".equals(text(d, "scope"))) {
        String version = text(d, "version");
        out.add(coordinates(d) + (withVersions && version != null ? "#" + version : ""));
      }
    }
    return out;
  }

  private static String coordinates(Element dependency) {
    return text(dependency, "groupId") + ":" + text(dependency, "artifactId");
  }

  private static Element parse(String xml) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(new InputSource(new StringReader(xml))).getDocumentElement();
  }

  private static Element child(Element parent, String name) {
    if (parent == null) {
      return null;
    }
    List<Element> found = children(parent, name);
    return found.isEmpty() ? null : found.get(0);
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> out = new ArrayList<>();
    if (parent != null) {
      for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
        if (n instanceof Element e && e.getTagName().equals(name)) {
          out.add(e);
        }
      }
    }
    return out;
  }

  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? null : e.getTextContent().trim();
  }
}
