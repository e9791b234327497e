# Region masses C(m,k) mu(U_S) of Gaussian top-k routing, one panel per d, vs uniform masses (all at 1).
# Usage: gnuplot -e "csv='results/routing_mass_histogram.csv'; png='results/routing_mass_histogram.png'" plots/routing_mass_histogram.gp
# Writes png and, beside it, the same figure as SVG (png with .svg). Columns are read by name (study
# routing.mass_histogram); panels: the smallest, a middle and the largest d of the CSV; the title
# comes from the CSV metadata.
if (!exists("csv")) csv = 'results/routing_mass_histogram.csv'
if (!exists("png")) png = 'results/routing_mass_histogram.png'
svg = (strlen(png) > 4 && png[strlen(png)-3:] eq ".png" ? png[1:strlen(png)-4] : png) . ".svg"
meta(key) = system(sprintf("grep -m1 '^# %s:' '%s' | sed 's/^# %s: *//'", key, csv, key))

set encoding utf8
set datafile separator comma
set datafile columnheaders
stats csv using "d" name "D" nooutput
d1 = D_min; d3 = D_max
stats csv using (column("d") > d1 && column("d") < d3 ? column("d") : 1/0) name "M" nooutput
d2 = M_min
stats csv using "x" name "X" nooutput
w = 2 * X_min
stats csv using "m" name "MM" nooutput
stats csv using "k" name "KK" nooutput
title_text = meta("title")
if (title_text eq "") title_text = "Region masses of Gaussian routing"
title_text = sprintf("%s: C mu(U_S) over all C(%d,%d) regions and the routing draws", title_text, MM_min, KK_min)
do for [out in "png svg"] {
  if (out eq "png") {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1500,520 enhanced font ",11" } else { set terminal png size 1500,520 }
    set output png
  } else {
    set terminal svg size 1500,520 enhanced font ",11" background "white"
    set output svg
  }
  set multiplot layout 1, 3 title title_text
  set grid
  set xrange [0:3]
  set xlabel "C(m,k) mu(U_S)   (uniform masses: all at 1)"
  set ylabel "density"
  set key top right box opaque font ",9"
  set arrow 1 from 1, graph 0 to 1, graph 1 nohead lw 2 lc rgb "#2ca02c"
  set arrow 2 from 0.5, graph 0 to 0.5, graph 1 nohead dt 2 lw 2 lc rgb "#ff7f0e"
  do for [dd in sprintf("%d %d %d", d1, d2, d3)] {
    stats csv using (column("d") == dd ? column("second_moment_mean") : 1/0) name "S" nooutput
    stats csv using (column("d") == dd ? column("balanced_fraction_mean") : 1/0) name "B" nooutput
    stats csv using (column("d") == dd && column("x") < w ? column("empirical_density") * w : 1/0) name "Z" nooutput
    set title sprintf("d = %s:  C^2 E mu^2 = %.2f,  balanced fraction %.2f\n%.1f%% of the regions have C mu < %.2f (first bin)", \
                      dd, S_mean, B_mean, 100 * Z_max, w)
    set yrange [0:2.9]
    plot csv using (column("d") == dd ? column("x") : 1/0):"empirical_density" with boxes fs solid 0.35 lc rgb "#1f77b4" title "Monte-Carlo histogram", \
         csv using (column("d") == dd ? column("x") : 1/0):"lognormal_reference_density" with lines lw 2 lc rgb "#d62728" \
           title "lognormal, mean 1, variance c2/d + C/n", \
         NaN with lines lw 2 lc rgb "#2ca02c" title "uniform (1)", \
         NaN with lines dt 2 lw 2 lc rgb "#ff7f0e" title "Lemma 3.2 threshold 1/2"
  }
  unset multiplot
  set output
}
