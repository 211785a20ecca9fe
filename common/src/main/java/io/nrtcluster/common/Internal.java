package io.nrtcluster.common;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Public only because another nrtcluster module uses it (Java has no "visible to our own jars"
 * without JPMS), like Lucene's {@code @lucene.internal}: a service must not use it, and it may
 * change or disappear in any release without notice. The API check ignores it.
 *
 * <p>On a type it covers the type's members and nested types; on a member of a {@link Stable} type
 * it takes that member out of the stable API (for example an accessor that hands out a building
 * block the node modules share).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
@Stable
public @interface Internal {}
