# Lemmas A.5 and A.6 against d: the balanced fraction and the normalised second moment of region masses.
# Usage: gnuplot -e "csv='results/routing_balance.csv'; png='results/routing_balance.png'" plots/routing_balance.gp
# Writes png and, beside it, the same figure as SVG (png with .svg). Columns are read by name
# (study routing.balance: m, k, d, d_over_k_log2m, second_moment_mean, ...); the (m, k) shapes and
# the title come from the CSV itself.
if (!exists("csv")) csv = 'results/routing_balance.csv'
if (!exists("png")) png = 'results/routing_balance.png'
svg = (strlen(png) > 4 && png[strlen(png)-3:] eq ".png" ? png[1:strlen(png)-4] : png) . ".svg"
meta(key) = system(sprintf("grep -m1 '^# %s:' '%s' | sed 's/^# %s: *//'", key, csv, key))
title_text = meta("title")
if (title_text eq "") title_text = "Routing regions of Gaussian top-k routers against d"
title_text = title_text . " (granularity paper)"
# The distinct (m, k) of the CSV, as "m,k m,k ...", in order of appearance.
shapes = system(sprintf("awk -F, '/^#/{next} !h{for(i=1;i<=NF;i++)c[$i]=i;h=1;next} !s[$c[\"m\"] \" \" $c[\"k\"]]++{printf \"%%s,%%s \", $c[\"m\"], $c[\"k\"]}' '%s'", csv))
nshapes = words(shapes)
mm(i) = int(word(shapes, i)[1:strstrt(word(shapes, i), ",") - 1])
kk(i) = int(word(shapes, i)[strstrt(word(shapes, i), ",") + 1:])
colors = "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f"
color(i) = word(colors, (i - 1) % 8 + 1)
is(i) = column("m") == mm(i) && column("k") == kk(i)

set encoding utf8
set datafile separator comma
set datafile columnheaders
do for [out in "png svg"] {
  if (out eq "png") {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1500,620 enhanced font ",11" } else { set terminal png size 1500,620 }
    set output png
  } else {
    set terminal svg size 1500,620 enhanced font ",11" background "white"
    set output svg
  }
  set multiplot layout 1, 2 title title_text
  set grid
  set logscale x 2
  unset logscale y
  set xlabel "d / (k (log m)^2)"
  set ylabel "fraction of regions with mass >= 1/(2 C(m,k))"
  set yrange [0:1.05]
  set key bottom right box opaque
  set arrow 1 from 1, graph 0 to 1, graph 1 nohead dt 3 lw 1.5 lc rgb "gray40"
  set label 1 "d = k (log m)^2" at 1.08, 0.05 left tc rgb "gray30"
  plot for [i=1:nshapes] csv using (is(i) ? column("d_over_k_log2m") : 1/0):"balanced_fraction_mean":"balanced_fraction_std_error" \
         with yerrorlines pt 7 ps 0.8 lc rgb color(i) title sprintf("(m, k) = (%d, %d)", mm(i), kk(i)), \
       1.0/9 with lines dt 2 lw 2 lc rgb "black" title "Lemma A.6: 1/9"
  unset arrow 1
  unset label 1
  set logscale y 10
  set yrange [*:*]
  set xlabel "d"
  set ylabel "C(m,k)^2 E mu(U_S)^2 - 1"
  set key top right box opaque
  plot for [i=1:nshapes] csv using (is(i) ? column("d") : 1/0):(column("second_moment_mean") - 1):"second_moment_std_error" \
         with yerrorbars pt 7 ps 0.8 lc rgb color(i) title sprintf("(%d, %d) Monte-Carlo", mm(i), kk(i)), \
       for [i=1:nshapes] csv using (is(i) ? column("d") : 1/0):(column("second_moment_asymptotic") - 1) with lines lw 1.5 lc rgb color(i) notitle, \
       2 with lines dt 2 lw 2 lc rgb "black" title "Lemma A.5: C^2 E mu^2 <= 3", \
       NaN with lines lw 1.5 lc rgb "gray40" title "lines: c2(m,k)/d (Mehler; a lower bound)"
  unset multiplot
  set output
}
