# Generalization gap of trained top-k MoEs against the number of experts T (up to 1024), k fixed
# (compositional paper, Theorem 1, Open Question 4). Left: the measured gap (test - train bounded
# loss, mean +- s.e.) against log T, one line per m, with its least-squares line a + b log T (weights
# 1/s.e.^2). Right: the terms that carry T, each divided by its value at the smallest T, log-log: the
# printed routing term 2 k N d_N log T (d_N = d T: T log T), Eq. 17's 2 N d_N log C(T, k), the naive
# ensemble's linear rate 4 C T R_m(H) (derived form), and the measured gap divided likewise.
# Usage: gnuplot -e "csv='results/trained_generalization_gap_large_T.csv'; png='results/trained_generalization_gap_large_T.png'" plots/trained_generalization_gap_large_T.gp
# Columns are selected by name (study trained.generalization_gap).
if (!exists("csv")) csv = 'results/trained_generalization_gap_large_T.csv'
if (!exists("png")) png = 'results/trained_generalization_gap_large_T.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
col_values(name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; next} {print $k}' | sort -n | uniq | tr '\\n' ' '", csv, name))
# The value of column `want` in the row with T = the smallest T and m = mval.
at_min_T(want, mval) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} $c[\"m\"] == %s {print $c[\"T\"], $c[\"%s\"]}' | sort -n | head -1 | cut -d' ' -f2", csv, mval, want)) + 0
ms = col_values("m")
Ts = col_values("T")
kk = word(col_values("k"), 1)
Tlo = word(Ts, 1) + 0
Thi = word(Ts, words(Ts)) + 0
set datafile separator comma
set datafile columnheaders
array a[words(ms)]
array b[words(ms)]
do for [i = 1:words(ms)] {
  f(x) = aa + bb * x
  aa = 0.01; bb = 0.001
  set fit quiet nolog
  fit f(x) csv using ((column("m") == word(ms, i) + 0) ? log(column("T")) : 1/0):"gap_mean":"gap_std_error" yerrors via aa, bb
  a[i] = aa; b[i] = bb
}
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1400,600 enhanced font ",11" } else { set terminal png size 1400,600 }
  set output png
} else {
  set terminal svg size 1400,600 enhanced font ",11" dynamic background "white"
  set output svg
}
set multiplot layout 1, 2 title sprintf("Trained top-%s MoEs, T up to %s experts: gap vs Theorem 1's T terms; %s", kk, word(Ts, words(Ts)), trials_text)
set grid
set logscale x 2
set xlabel "experts T"
set ylabel "test - train loss, min(1, |f - y|)"
set key top left box opaque font ",9"
set title "measured gap (mean +- s.e.) and its fit a + b log T"
plot for [i = 1:words(ms)] csv using ((column("m") == word(ms, i) + 0) ? column("T") : 1/0):"gap_mean":"gap_std_error" \
       with yerrorlines lw 2 lc i title sprintf("m = %s", word(ms, i)), \
     for [i = 1:words(ms)] [Tlo:Thi] a[i] + b[i] * log(x) with lines dt 2 lc i title sprintf("fit: b = %.4f per log T", b[i])
set logscale y 10
set ylabel "term / its value at the smallest T (log)"
mm = word(ms, words(ms))
set title sprintf("growth in T (m = %s): gap vs the bound's T terms", mm)
g0 = at_min_T("gap_mean", mm)
p0 = at_min_T("printed_routing_log", mm)
e0 = at_min_T("eq17_routing_log", mm)
d0 = at_min_T("derived_rademacher_term", mm)
plot csv using ((column("m") == mm + 0 && column("gap_mean") > 0) ? column("T") : 1/0):(column("gap_mean") / g0) with linespoints lw 2 pt 7 lc 1 title "measured gap", \
     csv using ((column("m") == mm + 0) ? column("T") : 1/0):(column("printed_routing_log") / p0) with linespoints lw 2 pt 5 lc 2 title "2 k N d_N log T (printed; d_N = d T)", \
     csv using ((column("m") == mm + 0) ? column("T") : 1/0):(column("eq17_routing_log") / e0) with linespoints lw 2 pt 4 dt 2 lc 3 title "2 N d_N log C(T, k) (Eq. 17)", \
     csv using ((column("m") == mm + 0) ? column("T") : 1/0):(column("derived_rademacher_term") / d0) with linespoints lw 2 pt 9 lc 4 title "4 C T R_m(H) (naive ensemble, linear in T)", \
     [Tlo:Thi] log(x) / log(Tlo) with lines dt 3 lc rgb "black" title "log T / log T_{min}"
unset logscale y
unset multiplot
}
