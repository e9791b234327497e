# Expert utilisation of trained top-k MoEs against k = 1..T, one curve per gate (study
# trained.utilisation). Panels: effective experts exp(H(load)) (T: balanced), distinct and effective
# masks against C(T, k), largest / mean expert load (1: balanced), fraction of dead experts.
# Usage: gnuplot -e "csv='results/trained_utilisation.csv'; png='results/trained_utilisation.png'" plots/trained_utilisation.gp
# Columns are read by name.
if (!exists("csv")) csv = 'results/trained_utilisation.csv'
if (!exists("png")) png = 'results/trained_utilisation.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
meta(key) = system(sprintf("sed -n 's/^# %s: //p' '%s' | head -1", key, csv))
distinct(col) = system(sprintf("awk -F, '/^#/{next} !h{for(i=1;i<=NF;i++)c[$i]=i;h=1;next} !s[$c[\"%s\"]]++{printf \"%%s \", $c[\"%s\"]}' '%s'", col, col, csv))
gates = distinct("gate")
Tmax = word(distinct("T"), 1) + 0
is(i) = strcol("gate") eq word(gates, i)
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1400,1000 enhanced font ",11" } else { set terminal png size 1400,1000 }
  set output png
} else {
  set terminal svg size 1400,1000 enhanced font ",11" dynamic background "white"
  set output svg
}
set datafile separator comma
set datafile columnheaders
set multiplot layout 2, 2 title sprintf("%s; %s", meta("title"), meta("trials")) noenhanced
set grid
set xlabel "active experts k"
set xrange [0.5:Tmax + 0.5]
set key bottom right box opaque font ",9"
set title "effective experts exp(H(load))"
set ylabel "experts"
set yrange [0:Tmax + 0.5]
plot for [i = 1:words(gates)] csv using (is(i) ? column("k") : 1/0):"effective_experts_mean":"effective_experts_se" with yerrorlines lw 2 lc i title word(gates, i) noenhanced, \
     Tmax with lines dt 2 lc rgb "black" title "T (balanced)"
set title "masks: distinct (solid), effective exp(H) (dashed), C(T, k) (black)"
set ylabel "masks (log)"
set logscale y
set autoscale y
plot for [i = 1:words(gates)] csv using (is(i) ? column("k") : 1/0):"distinct_masks_mean" with linespoints lw 2 pt 7 lc i title sprintf("%s distinct", word(gates, i)) noenhanced, \
     for [i = 1:words(gates)] csv using (is(i) ? column("k") : 1/0):"effective_masks_mean" with linespoints lw 2 pt 6 dt 2 lc i title sprintf("%s effective", word(gates, i)) noenhanced, \
     csv using (is(1) ? column("k") : 1/0):"masks_possible" with lines lw 1 lc rgb "black" title "C(T, k)"
unset logscale y
set title "load balance: largest / mean expert load"
set ylabel "max / mean"
set autoscale y
set key top right
plot for [i = 1:words(gates)] csv using (is(i) ? column("k") : 1/0):"load_max_over_mean_mean":"load_max_over_mean_se" with yerrorlines lw 2 lc i title word(gates, i) noenhanced, \
     1 with lines dt 2 lc rgb "black" title "balanced"
set title "dead experts (no test input routed to them)"
set ylabel "fraction of T"
set yrange [-0.02:1]
plot for [i = 1:words(gates)] csv using (is(i) ? column("k") : 1/0):"dead_fraction_mean":"dead_fraction_se" with yerrorlines lw 2 lc i title word(gates, i) noenhanced
unset multiplot
}
