package io.nrtcluster.common;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ModifiersTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Javadoc's own check leaves missing comments out (the build's doclint is {@code all,-missing}, as
 * most internal members carry none); this check covers what it leaves: every {@link Stable} type of
 * every module, and each of its public or protected members and nested types, has a doc comment.
 * Members that override a documented one ({@code @Override}) inherit its comment.
 */
@Timeout(120)
class StableApiDocTest {
  @Test
  void everyPublicMemberOfAStableTypeHasADocComment() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    assertThat(root.resolve("common").resolve("pom.xml")).as("the repository root").exists();
    List<Path> sources;
    try (Stream<Path> walk = Files.walk(root)) {
      sources = walk.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> p.toString().contains("/src/main/java/"))
          .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
          .toList();
    }
    assertThat(sources).as("main sources").hasSizeGreaterThan(100);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    List<String> missing = new ArrayList<>();
    int stableTypes;
    try (StandardJavaFileManager files = javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8)) {
      JavacTask task = (JavacTask) javac.getTask(null, files, d -> { }, List.of("-proc:none"), null,
          files.getJavaFileObjectsFromPaths(sources));
      DocTrees docs = DocTrees.instance(task);
      Checker checker = new Checker(docs, root, missing);
      for (CompilationUnitTree unit : task.parse()) {
        checker.scan(new TreePath(unit), false);
      }
      stableTypes = checker.stableTypes;
    }
    assertThat(stableTypes).as("@Stable types found").isGreaterThan(30);
    assertThat(missing).as("public members of @Stable types without a doc comment").isEmpty();
  }

  /** Walks types (not method bodies); the flag says whether an enclosing type is {@code @Stable}. */
  private static final class Checker extends TreePathScanner<Void, Boolean> {
    private final DocTrees docs;
    private final Path root;
    private final List<String> missing;
    int stableTypes;

    Checker(DocTrees docs, Path root, List<String> missing) {
      this.docs = docs;
      this.root = root;
      this.missing = missing;
    }

    @Override
    public Void visitClass(ClassTree type, Boolean inStable) {
      boolean stable = inStable || annotated(type.getModifiers(), "Stable");
      if (!stable) {
        return super.visitClass(type, false);
      }
      if (!annotated(type.getModifiers(), "Stable") && !visible(type.getModifiers(), getCurrentPath())) {
        return null; // a private or package-private type inside a @Stable one is not API
      }
      stableTypes++;
      require(getCurrentPath(), "type " + type.getSimpleName());
      for (Tree member : type.getMembers()) {
        TreePath path = new TreePath(getCurrentPath(), member);
        if (member instanceof ClassTree) {
          scan(member, true); // a path of its own under this type's, restored after
        } else if (member instanceof MethodTree m) {
          if (visible(m.getModifiers(), path) && !annotated(m.getModifiers(), "Override")) {
            require(path, type.getSimpleName() + "." + m.getName() + "(...)");
          }
        } else if (member instanceof VariableTree v) {
          // Enum constants count: the parser gives them public static final.
          if (visible(v.getModifiers(), path)) {
            require(path, type.getSimpleName() + "." + v.getName());
          }
        }
      }
      return null;
    }

    private void require(TreePath path, String what) {
      if (docs.getDocCommentTree(path) == null) {
        CompilationUnitTree unit = path.getCompilationUnit();
        long line = unit.getLineMap().getLineNumber(docs.getSourcePositions().getStartPosition(unit, path.getLeaf()));
        missing.add(root.relativize(Path.of(unit.getSourceFile().toUri())) + ":" + line + " " + what);
      }
    }

    /** Public or protected, or a member of an interface without {@code private} (implicitly public). */
    private static boolean visible(ModifiersTree modifiers, TreePath path) {
      if (modifiers.getFlags().contains(Modifier.PUBLIC) || modifiers.getFlags().contains(Modifier.PROTECTED)) {
        return true;
      }
      Tree owner = path.getParentPath().getLeaf();
      boolean inInterface = owner.getKind() == Tree.Kind.INTERFACE || owner.getKind() == Tree.Kind.ANNOTATION_TYPE;
      return inInterface && !modifiers.getFlags().contains(Modifier.PRIVATE);
    }

    private static boolean annotated(ModifiersTree modifiers, String simpleName) {
      return modifiers.getAnnotations().stream().anyMatch(a -> {
        String name = a.getAnnotationType().toString();
        return name.equals(simpleName) || name.endsWith("." + simpleName);
      });
    }
  }
}
