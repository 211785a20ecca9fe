package io.nrtcluster.common;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Public API a service may use but that may still change in any release, like Lucene's {@code
 * @lucene.experimental}: mostly observability (observers, statistics records) and lower-level
 * building blocks whose shape is not settled. The API check does not cover it; a change is named in
 * the release notes. Once it has settled it becomes {@link Stable}.
 *
 * <p>On a type it covers the type's members and nested types; on a member of a {@link Stable} type
 * it takes that member out of the stable API.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
@Stable
public @interface Experimental {}
