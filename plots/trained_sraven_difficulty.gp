# SRAVEN with uniform and power-law rule-combination frequencies (compositional paper, App. A.5; the
# trained counterpart of plots/sparsity_kstar_difficulty.gp; docs/trained.md): exact-match accuracy
# against the number of active experts k, one line per training weighting (uniform, and each alpha of
# w = (D_i + D_i')^-alpha). Left: ID problems drawn uniformly on the ID side (the same problems for
# every weighting of a seed); middle: ID problems drawn with the run's own training weights (the
# weighted error A.5's E_approx averages; = left for uniform); right: held-out combinations drawn
# uniformly. The titles give per weighting the trained k* with its 90% seed-bootstrap interval and
# the closed form's k* (column kstar_closed_form). One M per figure: set M (default: the first M).
# Usage: gnuplot -e "csv='results/trained_sraven_difficulty.csv'; png='results/trained_sraven_difficulty.png'" plots/trained_sraven_difficulty.gp
if (!exists("csv")) csv = 'results/trained_sraven_difficulty.csv'
if (!exists("png")) png = 'results/trained_sraven_difficulty.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
# The value of a column in the first data row.
first_value(name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; next} NR == 2 {print $k}'", csv, name))
if (!exists("M")) M = first_value("M") + 0
# The weightings in file order: "uniform" for the uniform rows, else the alpha.
weightings = system(sprintf("grep -v '^#' '%s' | awk -F, -v M=%d 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} $c[\"M\"] == M {v = ($c[\"combination_weights\"] == \"uniform\") ? \"uniform\" : $c[\"difficulty_alpha\"]; if (!(v in s)) {s[v] = 1; printf \"%%s \", v}}'", csv, M))
# "uniform: k* [lo,hi] (closed form c)", one line per weighting, for the titles; `name` is kstar_id, kstar_id_weighted or kstar_ood.
kstar_text(name) = system(sprintf("grep -v '^#' '%s' | awk -F, -v n=%s -v M=%d 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} $c[\"M\"] == M {v = ($c[\"combination_weights\"] == \"uniform\") ? \"uniform\" : \"α=\" $c[\"difficulty_alpha\"]; t = v \": \" $c[n] \" [\" $c[n \"_lo\"] \",\" $c[n \"_hi\"] \"] (closed form \" $c[\"kstar_closed_form\"] \")\"; if (!(t in s)) {s[t] = 1; printf \"%%s\\n\", t}}'", csv, name, M))
is_weighting(j) = (word(weightings, j) eq "uniform") ? (strcol("combination_weights") eq "uniform") : (strcol("combination_weights") eq "powerlaw" && column("difficulty_alpha") == word(weightings, j) + 0)
label(j) = (word(weightings, j) eq "uniform") ? "uniform (Assumption 5)" : sprintf("power law, α = %s", word(weightings, j))
att = first_value("attention")
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1800,760 enhanced font ",11"
  } else {
    set terminal png size 1800,760
  }
  set output png
} else {
  set terminal svg size 1800,760 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set datafile missing "nan"
set multiplot layout 1, 3 title sprintf("SRAVEN M = %d, one %s-attention block, MoE FFN, top-k; training combinations uniform or w ∝ (D_i + D_{i'})^{-α}, D_i = i (App. A.5); %s", M, att, trials_text)
set grid
set logscale x 2
set xrange [0.8:10]
set xtics ("1" 1, "2" 2, "4" 4, "8" 8)
set xlabel "active experts k"
set ylabel "exact-match accuracy"
set key bottom right box opaque
set tmargin 8
set title "ID, uniformly drawn test problems; k* [90% CI]:\n" . kstar_text("kstar_id") font ",9"
plot for [j = 1:words(weightings)] csv using (column("M") == M && is_weighting(j) ? column("k") : 1/0):"id_accuracy_mean":"id_accuracy_std_error" \
     with yerrorlines lw 2 pt 7 lc j title label(j)
set title "ID, test problems drawn with the training weights; k* [90% CI]:\n" . kstar_text("kstar_id_weighted") font ",9"
plot for [j = 1:words(weightings)] csv using (column("M") == M && is_weighting(j) ? column("k") : 1/0):"id_weighted_accuracy_mean":"id_weighted_accuracy_std_error" \
     with yerrorlines lw 2 pt 7 lc j title label(j)
set title "OOD (held-out combinations), uniformly drawn; k* [90% CI]:\n" . kstar_text("kstar_ood") font ",9"
plot for [j = 1:words(weightings)] csv using (column("M") == M && is_weighting(j) ? column("k") : 1/0):"ood_accuracy_mean":"ood_accuracy_std_error" \
     with yerrorlines lw 2 pt 7 lc j title label(j)
unset multiplot
unset logscale x
unset xrange
set xtics autofreq
}
