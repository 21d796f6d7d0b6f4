/**
 * sluice's planner stage: unchanged Flink SQL gets native operators.
 *
 * <p>{@link io.sluice.flink.planner.SluiceStage} is appended to Flink's stream optimization
 * ({@code Sluice.install(tEnv)}). It walks the final physical plan inputs first and offers each
 * node to the {@link io.sluice.flink.planner.Substitution} in
 * {@link io.sluice.flink.planner.Substitutions#ALL} that owns its class. Each entry's name is its
 * switch, {@code sluice.operator.<name>.enabled}; its matcher returns
 * {@link io.sluice.flink.planner.Match#replace} with a subtree holding sluice nodes, or
 * {@link io.sluice.flink.planner.Match#stock} with the reason (the function, type, changelog mode
 * or option; a matcher whose node carries rows through asks {@link io.sluice.flink.planner.CostRule}
 * whether the native node would be slower than Flink's). The stage checks the switch, {@code sluice.enabled} and, unless the entry is
 * {@code acceptingChangelog()}, that every input is insert-only, before calling the matcher.
 *
 * <p>A node with two inputs (the join: {@code keyed.StreamPhysicalSluiceJoin}) extends Calcite's
 * {@code BiRel} and implements {@link io.sluice.flink.planner.SluiceNode}, which is what the node
 * reports count as native.
 *
 * <h2>Adding a substitution (e.g. GroupAggregate)</h2>
 * <ol>
 *   <li>A physical node: {@code StreamPhysicalSluiceGroupAggregate extends}
 *       {@link io.sluice.flink.planner.SluicePhysicalRel}, built from the matched node with
 *       {@code (node.getCluster(), node.getTraitSet(), node.getInput(), node.getRowType())} so it
 *       keeps Flink's row type and changelog traits; {@code flinkNode()} returns
 *       {@code "GroupAggregate"}; {@code copy(traitSet, inputs)}; {@code explainTerms} adds the
 *       node's terms (its digest); {@code translateToExecNode()} returns the ExecNode below.</li>
 *   <li>An ExecNode: {@code extends} {@link io.sluice.flink.planner.SluiceExecNode}, constructed
 *       with {@code (ShortcutUtils.unwrapTableConfig(rel), "sluice-group-aggregate_1",
 *       InputProperty.DEFAULT, PlanContext.rowType(rel), rel.getRelDetailedDescription())} (the
 *       hash exchange on the key is Flink's own {@code StreamPhysicalExchange} below the node, as
 *       for Flink's GroupAggregate, which also takes {@code InputProperty.DEFAULT}); its
 *       {@code translateToPlanInternal(planner, config)} returns
 *       {@code oneInput(planner, config, "sluice-group-aggregate", operator, keys)}: a
 *       {@code OneInputTransformation} of the {@code OneInputStreamOperator<RowData, RowData>}
 *       at the input's parallelism, uid / name / description from Flink's
 *       {@code createTransformationMeta} (so {@code table.exec.uid.*} apply and savepoints map
 *       as for Flink's nodes), and, with key columns, the state key selector
 *       ({@code KeySelectorUtil.getRowDataSelector}: Flink's {@code BinaryRowData} key
 *       projection, so key groups equal Flink's; raw keyed state per key group works as in
 *       {@code SluiceKeyedOperator}). {@code inputType()} is the input's {@code RowType}.</li>
 *   <li>A matcher {@code Match match(StreamPhysicalGroupAggregate node, PlanContext ctx)}:
 *       {@code PlanContext.rowType(node.getInput())} is the input {@code RowType},
 *       {@code PlanContext.changelogMode(node.getInput())} / {@code insertOnly(...)} /
 *       {@code generatesUpdateBefore(...)} its changelog, {@code PlanContext.upsertKeys(rel)} the
 *       upsert keys (of an input that is already a sluice node, or sits above one, ask
 *       {@code ctx.original(input)}: Flink's metadata does not know sluice's nodes), {@code ctx.config()} the query's options (state TTL, mini-batch,
 *       {@code sluice.*}).</li>
 *   <li>One line in {@link io.sluice.flink.planner.Substitutions#ALL}:
 *       {@code Substitution.of("group-aggregate", StreamPhysicalGroupAggregate.class,
 *       GroupAggregateSubstitution::match).acceptingChangelog()}; the option constant
 *       ({@code SluiceOptions.OPERATOR_GROUP_AGGREGATE_ENABLED}) already exists.</li>
 *   <li>Parity queries: rows in the query table of
 *       {@code src/test/java/io/sluice/flink/planner/PlannerParityTest} (SQL, expected native
 *       nodes, ordered or materialized comparison).</li>
 * </ol>
 *
 * <p>Where the planner's API differs between Flink lines, the difference goes into
 * {@code io.sluice.flink.compat.PlannerCompat} (src/flink-1.20/java, src/flink-2/java); no Flink
 * planner class is copied or shadowed.
 */
package io.sluice.flink.planner;
